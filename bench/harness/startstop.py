"""2. Start and stop of the default pack: seam cold (empty cache) and warm, from a bundle, bpftrace
on a script probing the same functions; detach time on SIGTERM. 5. Peak RSS of seam run is read
here too. Deployment (issue 16): `seam --version` and the bundle-only image's size."""
import os
import re
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
import types

from . import tracers
from .procs import cpu_ms, peak_rss_kb, rss_breakdown

PROBES_ON = re.compile(r"(\d+) probes on (\S+)")
ATTACHED = re.compile(r"(\d+) probes attached for (\d+) rules in (\d+) ms")
DETACHED = re.compile(r"detached (\d+) probes in (\d+) ms")


def one_seam_run(art, cache_dir, name, paths=(), remove_cache=False, extra=()):
    """One start and stop; `remove_cache`: the cache dir was made for this run alone (a cold or
    bundle run), so it goes with it rather than piling up under /tmp. `extra`: more arguments of
    `seam run` (-e, -c)."""
    try:
        return seam_run_figures(art, cache_dir, name, paths, extra)
    finally:
        if remove_cache:
            shutil.rmtree(cache_dir, ignore_errors=True)


def seam_run_figures(art, cache_dir, name, paths, extra=()):
    t = tracers.Seam(art, list(paths), cache_dir=cache_dir, name=name, extra=extra)
    ready_s = t.start()
    # CPU used until ready: what a start costs whatever the load (ready's wall time on a busy
    # host is mostly waiting for a CPU).
    ready_cpu_ms = cpu_ms(t.proc.pid)
    rss_kb = peak_rss_kb(t.proc.pid)
    breakdown = rss_breakdown(t.proc.pid)
    stop_s = t.stop()
    text = "\n".join(n["message"] for n in t.notices())
    r = {"ready_s": ready_s, "stop_s": stop_s, "ready_cpu_ms": ready_cpu_ms, "peak_rss_kb": rss_kb, "rss_breakdown": breakdown, "libraries": {}}
    for m in PROBES_ON.finditer(text):
        r["libraries"][m.group(2)] = int(m.group(1))
    if m := ATTACHED.search(text):
        r["probes"], r["session_attach_ms"] = int(m.group(1)), int(m.group(3))
    if m := DETACHED.search(text):
        r["detached"], r["detach_ms"] = int(m.group(1)), int(m.group(2))
    return r


def summarize(runs):
    out = {"ready_ms": statistics.median(r["ready_s"] for r in runs) * 1e3,
           "stop_ms": statistics.median(r["stop_s"] for r in runs) * 1e3,
           "samples_ready_ms": [round(r["ready_s"] * 1e3, 1) for r in runs]}
    for key in ("probes", "detached", "detach_ms", "session_attach_ms", "ready_cpu_ms", "peak_rss_kb"):
        vals = [r[key] for r in runs if key in r]
        if vals:
            out[key] = statistics.median(vals) if key != "peak_rss_kb" else max(vals)
    return out


def seam_cold_warm(art, reps, paths, label, log, extra=()):
    cold, warm = [], []
    warm_cache = tempfile.mkdtemp(prefix="seam-bench-warm-")
    one_seam_run(art, warm_cache, "seam-warm", paths, extra=extra)  # fills the cache
    for rep in range(reps):
        r = one_seam_run(art, tempfile.mkdtemp(prefix="seam-bench-cold-"), "seam-cold", paths, remove_cache=True,
                         extra=extra)
        cold.append(r)
        log(f"  {label} seam cold rep {rep + 1}/{reps}: ready {r['ready_s'] * 1e3:7.1f} ms, {r.get('probes')} probes, "
            f"detach {r.get('detach_ms')} ms, exit {r['stop_s'] * 1e3:6.1f} ms after SIGTERM")
        r = one_seam_run(art, warm_cache, "seam-warm", paths, extra=extra)
        warm.append(r)
        log(f"  {label} seam warm rep {rep + 1}/{reps}: ready {r['ready_s'] * 1e3:7.1f} ms, detach {r.get('detach_ms')} ms, "
            f"exit {r['stop_s'] * 1e3:6.1f} ms, VmHWM {r['peak_rss_kb']} kB")
    shutil.rmtree(warm_cache, ignore_errors=True)
    warm_summary = summarize(warm)
    warm_summary["rss_breakdown"] = warm[-1]["rss_breakdown"]
    return summarize(cold), warm_summary, cold[-1]["libraries"]


def default_pack_bundle(art):
    bundle = os.path.join(art.out, "default-pack.seamb")
    subprocess.run([art.seam, "build", "-o", bundle], check=True, cwd=art.repo)
    return bundle


def bundle_cold(art, reps, log):
    """The default pack from a bundle of `seam build` (target: ready in at most 100 ms): nothing is
    compiled, so each run is as cold as the first; a fresh cache dir (so no feature cache
    either: what a first start after a reboot finds) proves no object is reused."""
    bundle = default_pack_bundle(art)
    runs = []
    for rep in range(reps):
        r = one_seam_run(art, tempfile.mkdtemp(prefix="seam-bench-bundle-"), "seam-bundle", [bundle], remove_cache=True)
        runs.append(r)
        log(f"  bundle     rep {rep + 1}/{reps}: ready {r['ready_s'] * 1e3:7.1f} ms, {r.get('probes')} probes, "
            f"attach {r.get('session_attach_ms')} ms in seam, {r['ready_cpu_ms']:.0f} ms of CPU until ready")
    return summarize(runs)


def deployment(art, reps, log):
    """`seam --version` wall time (target at most 20 ms), interleaved with /bin/true (the cost of
    starting any process here), and the bundle-only image: scripts/image-rootfs.sh with a stripped
    seam and the default pack's bundle, as deploy/container/Containerfile builds it (target at
    most 100 MB)."""
    times = {"version": [], "true": []}
    cpu = []  # --version's own CPU (getrusage of the waited-for child: microseconds, not ticks)
    for _ in range(max(reps * 5, 10)):
        for name, cmd in (("version", [art.seam, "--version"]), ("true", ["/bin/true"])):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append((time.monotonic() - t0) * 1e3)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if name == "version":
                cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3)
    log(f"  seam --version: {', '.join(f'{t:.1f}' for t in times['version'])} ms wall, "
        f"{statistics.median(cpu):.1f} ms CPU (median)")
    work = tempfile.mkdtemp(prefix="seam-bench-image-")
    try:
        seam = os.path.join(work, "seam")
        shutil.copy(art.seam, seam)
        subprocess.run(["strip", seam], check=True)
        rootfs = os.path.join(work, "rootfs")
        subprocess.run(["bash", os.path.join(art.repo, "scripts", "image-rootfs.sh"), seam, default_pack_bundle(art),
                        rootfs], check=True, stdout=subprocess.DEVNULL)
        size = int(subprocess.run(["du", "-sb", rootfs], check=True, capture_output=True, text=True).stdout.split()[0])
        binary = os.path.getsize(seam)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    log(f"  bundle-only image root filesystem: {size / 1e6:.1f} MB (stripped seam {binary / 1e6:.1f} MB)")
    return {"version_ms": statistics.median(times["version"]), "true_ms": statistics.median(times["true"]),
            "version_cpu_ms": statistics.median(cpu),
            "version_samples_ms": [round(t, 1) for t in times["version"]],
            "image_bytes": size, "image_mb": size / 1e6, "stripped_seam_bytes": binary}


def start_against(art, other_seam, reps, log, cold, paths=()):
    """The start of `paths` (none: the default pack) with this build and with `other_seam` (another build's seam),
    alternating run by run, so that both see the same machine: on this VM the load drifts more
    between two bench runs than a few ms of start differ. Warm: each keeps its own warm cache.
    Cold: each run gets a fresh cache dir (no object, no feature cache), as seam_cold_warm's do."""
    seams = {"this": art.seam, "against": other_seam}
    label = "cold" if cold else "warm"
    caches = {} if cold else {k: tempfile.mkdtemp(prefix=f"seam-bench-ab-{k}-") for k in seams}
    runs = {k: [] for k in seams}
    try:
        for k, seam in caches.items():
            one_seam_run(types.SimpleNamespace(seam=seams[k]), seam, "seam-warm", paths)  # fills the cache
        for rep in range(reps):
            for k, seam in seams.items():
                cache = tempfile.mkdtemp(prefix=f"seam-bench-ab-cold-{k}-") if cold else caches[k]
                r = one_seam_run(types.SimpleNamespace(seam=seam), cache, f"seam-{label}", paths, remove_cache=cold)
                runs[k].append(r)
                log(f"  {label} start, {k} rep {rep + 1}/{reps}: ready {r['ready_s'] * 1e3:7.1f} ms, "
                    f"{r.get('ready_cpu_ms')} ms CPU")
    finally:
        for c in caches.values():
            shutil.rmtree(c, ignore_errors=True)
    out = {k: summarize(v) for k, v in runs.items()}
    for k, v in runs.items():
        out[k]["mean_cpu_ms"] = statistics.mean(r["ready_cpu_ms"] for r in v)
    out["against_seam"] = other_seam
    return out


ONE_LINER = "cudaStreamSynchronize > 10ms -> alert with ustack"


def one_liner(art, reps, cudart, log):
    """The one-liner an operator types, with a command to trace: `seam run -e ONE_LINER -c CMD`,
    cold (a fresh cache each run) and warm (the same line again: neither the private file its text
    is written to nor -c's new cgroup is in the generated C, so a later run finds the object), next
    to `bpftrace -c CMD` on a script probing the same functions the same way."""
    # The run ends with it; ready comes long before. A full path: bpftrace -c refuses a name that
    # two PATH entries resolve (/bin and /usr/bin on a merged-/usr Debian).
    command = f"{shutil.which('sleep')} 1"
    extra = ["-e", ONE_LINER, "-c", command]
    cold, warm, _ = seam_cold_warm(art, reps, [], "one-liner", log, extra=extra)
    script = os.path.join(art.out, "one_liner.bt")
    with open(script, "w") as f:
        f.write(tracers.one_liner_bt(cudart))
    bt = []
    for rep in range(reps):
        t = tracers.Bpftrace(art, script, "bpftrace-one-liner", extra=["-c", command])
        ready_s = t.start()
        t.stop()
        bt.append({"ready_s": ready_s, "stop_s": 0.0})
        log(f"  one-liner bpftrace rep {rep + 1}/{reps}: ready {ready_s * 1e3:7.1f} ms")
    return {"rule": ONE_LINER, "command": command, "seam_cold": cold, "seam_warm": warm, "bpftrace": summarize(bt)}


def pair_against_bpftrace(art, pair, script, reps, log):
    """The pair cold (a fresh cache each run) and bpftrace on the same functions, one after the
    other `reps` times: the issue's comparison, judged on runs that share the machine's state,
    rather than on two blocks of runs minutes apart."""
    runs = {"seam": [], "bpftrace": []}

    def seam():
        runs["seam"].append(one_seam_run(art, tempfile.mkdtemp(prefix="seam-bench-pair-bt-"), "seam-pair-cold",
                                         pair, remove_cache=True))

    def bpftrace():
        t = tracers.Bpftrace(art, script, "bpftrace-pair")
        ready_s = t.start()
        runs["bpftrace"].append({"ready_s": ready_s, "stop_s": t.stop()})

    for rep in range(reps):
        for run in ((seam, bpftrace) if rep % 2 == 0 else (bpftrace, seam)):  # neither always first
            run()
        log(f"  gil+malloc cold / bpftrace, rep {rep + 1}/{reps}: ready {runs['seam'][-1]['ready_s'] * 1e3:7.1f} / "
            f"{runs['bpftrace'][-1]['ready_s'] * 1e3:7.1f} ms")
    return {k: summarize(v) for k, v in runs.items()}


def measure(art, reps, log, against=None):
    """The whole default pack (rules/), and its two CUDA/GIL rules alone (gil.seam, malloc.seam),
    which is what the bpftrace script does too. `against`: another build's seam, whose warm and cold
    starts are timed alternately with this one's (start_against)."""
    out = {}
    pair = [os.path.join(art.repo, "rules", f) for f in ("gil.seam", "malloc.seam")]
    if against:
        out["warm_against"] = start_against(art, against, 2 * reps, log, cold=False)
        out["cold_against"] = start_against(art, against, reps, log, cold=True)
        out["pair_cold_against"] = start_against(art, against, 2 * reps, log, cold=True, paths=pair)
    out["seam_cold"], out["seam_warm"], out["libraries"] = seam_cold_warm(art, reps, [], "default pack", log)
    out["pair_cold"], out["pair_warm"], libraries = seam_cold_warm(art, reps, pair, "gil+malloc", log)
    out["pair_libraries"] = libraries
    out["bundle_cold"] = bundle_cold(art, reps, log)
    out["deploy"] = deployment(art, reps, log)
    bt = []
    # bpftrace probes the same library files the seam runs found, the same functions.
    cudarts = [p for p in libraries if "cudart" in p] or ["/usr/local/cuda/lib/libcudart.so.13"]
    # seam reads the GIL from interpreter memory and maps no libpython; bpftrace needs the GIL
    # probes on the libpython the Python workload links.
    pythons = [p for p in libraries if "python" in p] or ([art.libpython] if art.libpython else [])
    script = os.path.join(art.out, "default_pack.bt")
    with open(script, "w") as f:
        f.write(tracers.default_pack_bt(cudarts[0], pythons[0] if pythons else ""))
    for rep in range(reps):
        t = tracers.Bpftrace(art, script, "bpftrace-pack")
        ready_s = t.start()
        stop_s = t.stop()
        m = re.search(r"Attaching (\d+) probes", t.proc.text())
        bt.append({"ready_s": ready_s, "stop_s": stop_s, "probes": int(m.group(1)) - 1 if m else None,
                   "killed": t.proc.killed})
        log(f"  bpftrace   rep {rep + 1}/{reps}: ready {ready_s * 1e3:7.1f} ms, exit {stop_s * 1e3:6.1f} ms after SIGTERM"
            + (" (did not exit: killed after 10 s)" if t.proc.killed else ""))
    out["bpftrace"] = summarize(bt)
    out["bpftrace"]["killed"] = sum(1 for r in bt if r["killed"])
    out["bpftrace_script"] = script
    out["pair_vs_bpftrace"] = pair_against_bpftrace(art, pair, script, 2 * reps, log)
    out["one_liner"] = one_liner(art, reps, cudarts[0], log)
    return out
