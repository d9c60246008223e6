#!/usr/bin/env python3
"""Writes an OCI bundle's config.json for runc: `runc spec`'s default, without the rlimits entry
(root here lacks CAP_SYS_RESOURCE, so runc's setrlimit would fail), with the process, the
capabilities, the host's PID namespace and bind mounts the tests ask for.

  oci_config.py BUNDLE_DIR [--host-pid] [--caps CAP...] [--bind SRC:DST[:ro]...] -- ARGS...
"""
import argparse
import json
import os
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("bundle")
ap.add_argument("--host-pid", action="store_true", help="share the host's PID namespace (hostPID)")
ap.add_argument("--caps", nargs="*", default=None, help="capabilities instead of runc's default set")
ap.add_argument("--bind", nargs="*", default=[])
ap.add_argument("--env", nargs="*", default=[])
argv = sys.argv[1:]
if "--" not in argv:
    sys.exit("oci_config.py: the container's command goes after --")
a = ap.parse_args(argv[:argv.index("--")])
a.args = argv[argv.index("--") + 1:]

path = os.path.join(a.bundle, "config.json")
if os.path.exists(path):
    os.unlink(path)
subprocess.run(["runc", "spec", "--bundle", a.bundle], check=True)
with open(path) as f:
    c = json.load(f)
p = c["process"]
p.pop("rlimits", None)
p["terminal"] = False
p["args"] = a.args
p["env"] = p.get("env", []) + a.env
if a.caps is not None:
    caps = sorted({"CAP_" + x.upper().removeprefix("CAP_") for x in a.caps})
    for kind in ("bounding", "effective", "permitted", "ambient", "inheritable"):
        p["capabilities"][kind] = caps
if a.host_pid:
    c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "pid"]
for b in a.bind:
    parts = b.split(":")
    opts = ["rbind", "ro" if len(parts) > 2 and parts[2] == "ro" else "rw"]
    c["mounts"].append({"destination": parts[1], "type": "bind", "source": parts[0], "options": opts})
# A read-only image with a private, writable /tmp (seam's kernel feature probes write a file there).
c["root"]["readonly"] = True
c["mounts"].append({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=1777"]})
with open(path, "w") as f:
    json.dump(c, f, indent=1)
