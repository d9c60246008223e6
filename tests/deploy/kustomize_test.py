#!/usr/bin/env python3
"""deploy/kubernetes/ renders offline with `kubectl kustomize`, and the objects have what the
DaemonSet needs: hostPID, the capabilities (and nothing else, not privileged), the mounts,
rules from the generated ConfigMap, /healthz probes, the node name for --pods; a PodMonitor on
the metrics port; a PrometheusRule over the windowed metrics. Usage: kustomize_test.py SOURCE_DIR"""
import shutil
import subprocess
import sys
import tempfile
import re

import yaml

src = sys.argv[1]
out = subprocess.run(["kubectl", "kustomize", f"{src}/deploy/kubernetes"], check=True, capture_output=True, text=True)
objs = {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(out.stdout) if o}
failures = []


def check(what, ok):
    if not ok:
        failures.append(what)


kinds = {k for k, _ in objs}
for kind in ("Namespace", "ServiceAccount", "DaemonSet", "ConfigMap", "PodMonitor", "PrometheusRule"):
    check(f"a {kind}", kind in kinds)
ds = objs[("DaemonSet", "seam")]
check("everything in namespace seam", all(o["metadata"].get("namespace") == "seam"
                                          for (k, _), o in objs.items() if k not in ("Namespace", "ClusterRole", "ClusterRoleBinding")))
pod = ds["spec"]["template"]["spec"]
check("hostPID", pod.get("hostPID") is True)
c = pod["containers"][0]
sc = c["securityContext"]
check("not privileged", sc.get("privileged") is False)
check("drops every other capability", sc["capabilities"]["drop"] == ["ALL"])
check("the capability list", sorted(sc["capabilities"]["add"]) == ["BPF", "DAC_READ_SEARCH", "PERFMON", "SYS_ADMIN", "SYS_PTRACE"])
check("read-only root filesystem", sc.get("readOnlyRootFilesystem") is True)
mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
volumes = {v["name"]: v for v in pod["volumes"]}
for path, host in (("/sys/kernel/debug", "/sys/kernel/debug"), ("/sys/fs/bpf", "/sys/fs/bpf"),
                   ("/sys/fs/cgroup", "/sys/fs/cgroup"), ("/host/proc", "/proc")):
    m = mounts.get(path)
    check(f"{path} mounted from the host's {host}", m is not None and volumes[m["name"]].get("hostPath", {}).get("path") == host)
rules = mounts.get("/etc/seam/rules.d")
cm_name = rules and volumes[rules["name"]].get("configMap", {}).get("name")
check("rules from the generated ConfigMap", cm_name is not None and cm_name.startswith("seam-rules-") and ("ConfigMap", cm_name) in objs)
if cm_name and ("ConfigMap", cm_name) in objs:
    data = objs[("ConfigMap", cm_name)]["data"]
    check("the ConfigMap holds rule files", "use cuda" in data.get("gil.seam", ""))
args = c["args"]
check("runs the rules directory", args[:2] == ["run", "/etc/seam/rules.d"])
check("--pods with the node name", "--pods" in args and args[args.index("--pods") + 1] == "https://$(NODE_NAME):10250/pods")
env = {e["name"]: e for e in c.get("env", [])}
check("NODE_NAME from spec.nodeName", env.get("NODE_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName")
check("listens on all addresses", "0.0.0.0:9401" in args)
for probe in ("livenessProbe", "readinessProbe"):
    check(f"{probe} on /healthz", c.get(probe, {}).get("httpGet", {}).get("path") == "/healthz")
check("metrics port 9401", any(p["containerPort"] == 9401 and p["name"] == "metrics" for p in c["ports"]))
sel = ds["spec"]["selector"]["matchLabels"]
check("the selector matches the pod", all(ds["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in sel.items()))
pm = objs[("PodMonitor", "seam")]
check("the PodMonitor selects the pods", all(ds["spec"]["template"]["metadata"]["labels"].get(k) == v
                                              for k, v in pm["spec"]["selector"]["matchLabels"].items()))
check("the PodMonitor scrapes /metrics on the metrics port", pm["spec"]["podMetricsEndpoints"][0] == {**pm["spec"]["podMetricsEndpoints"][0], "port": "metrics", "path": "/metrics"})
exprs = [r["expr"] for g in objs[("PrometheusRule", "seam")]["spec"]["groups"] for r in g["rules"]]
check("a windowed p99 rule over seam_sync_latency", any("histogram_quantile(0.99" in e and "seam_sync_latency_seconds_bucket[1m]" in e for e in exprs))
check("seam's drops alert", any("seam_rule_dropped_total" in e for e in exprs))
# The overlay for clang-less nodes: a bundle in a ConfigMap's binaryData, run from its mount.
# Its inline `patches` and binaryData need kustomize v4 or later; Debian's kubectl 1.20
# (kubernetes-client) embeds v2, where the overlay is not rendered (and the test says so).
version = subprocess.run(["kubectl", "version", "--client"], capture_output=True, text=True).stdout
kustomize_major = int(m.group(1)) if (m := re.search(r"Kustomize Version: v(\d+)", version)) else 0
if kustomize_major < 4:
    print(f"kustomize_test: the bundle overlay not rendered: kubectl's kustomize is v{kustomize_major}, it needs v4")
if kustomize_major >= 4:
    with tempfile.TemporaryDirectory() as tmp:
        for d in ("kubernetes", "kubernetes-bundle"):
            shutil.copytree(f"{src}/deploy/{d}", f"{tmp}/{d}")
        with open(f"{tmp}/kubernetes-bundle/pack.seamb", "wb") as f:
            f.write(b"SEAMBNDL" + bytes(range(256)))  # not text: kustomize must put it in binaryData
        out = subprocess.run(["kubectl", "kustomize", f"{tmp}/kubernetes-bundle"], check=True, capture_output=True, text=True)
        objs = {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(out.stdout) if o}
        c = objs[("DaemonSet", "seam")]["spec"]["template"]["spec"]["containers"][0]
        check("the overlay runs the bundle", c["args"][:2] == ["run", "/etc/seam/bundle/pack.seamb"])
        mount = {m["mountPath"]: m for m in c["volumeMounts"]}.get("/etc/seam/bundle")
        vol = mount and {v["name"]: v for v in objs[("DaemonSet", "seam")]["spec"]["template"]["spec"]["volumes"]}[mount["name"]]
        cm = vol and ("ConfigMap", vol["configMap"]["name"])
        check("the bundle comes from a ConfigMap's binaryData", cm in objs and "pack.seamb" in objs[cm].get("binaryData", {}))
if failures:
    print("kustomize_test: missing: " + "; ".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"kustomize_test: ok ({len(objs)} objects)")
