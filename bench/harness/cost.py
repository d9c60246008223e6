"""1. Cost per traced call: the tight-loop caller under each tracer, and the in-kernel program
time from bpf_prog_info (kernel.bpf_stats_enabled) in a separate pass, since enabling the stats
itself adds two clock reads per program run."""
import json
import re
import statistics
import subprocess

from .procs import Proc

CALL_LINE = re.compile(r"cpu ([\d.]+) wall ([\d.]+) ns/call")


def run_caller(art, tracer, library, function, n, during=None):
    """Starts the caller (library mapped, waiting), then the tracer, then the timed loop.
    Returns {"cpu": ns/call, "wall": ns/call, "ready_s": tracer start time}."""
    caller = Proc([art.caller, library, function, str(n), "--wait"], stdin=True)
    try:
        caller.wait_line(lambda s, l: s == "out" and l == "ready", 10)
        ready_s = tracer.start()
        before = during() if during else None
        caller.send("go\n")
        _, _, line = caller.wait_line(lambda s, l: s == "out" and l.startswith("cpu"), 600)
        after = during() if during else None
        m = CALL_LINE.search(line)
        result = {"cpu": float(m.group(1)), "wall": float(m.group(2)), "ready_s": ready_s}
        if during:
            result["during"] = (before, after)
        return result
    finally:
        try:
            tracer.stop()
        finally:
            caller.stop()


def prog_stats():
    """id -> (name, run_cnt, run_time_ns) for every loaded BPF program."""
    out = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True).stdout
    return {p["id"]: (p.get("name", "?"), p.get("run_cnt", 0), p.get("run_time_ns", 0)) for p in json.loads(out or "[]")}


def set_bpf_stats(value):
    path = "/proc/sys/kernel/bpf_stats_enabled"
    with open(path) as f:
        old = f.read().strip()
    with open(path, "w") as f:
        f.write(str(value))
    return old


def measure(tracers, art, library, function, n, reps, log):
    """Repeats every tracer `reps` times, rotating the order each round. Returns per tracer the
    median CPU and wall ns/call and the samples."""
    samples = {t.name: [] for t in tracers}
    for rep in range(reps):
        order = tracers[rep % len(tracers):] + tracers[:rep % len(tracers)]
        for t in order:
            r = run_caller(art, t, library, function, n)
            samples[t.name].append(r)
            log(f"  {function} {t.name:<16} rep {rep + 1}/{reps}: {r['cpu']:8.1f} ns/call cpu, {r['wall']:8.1f} wall")
    # Other sessions on this shared machine run `seam run` with the default pack, which finds any
    # process mapping a libcudart.so* (ours too) and attaches to it. A round whose untraced run
    # is slow had foreign probes on the library: drop that round for every tracer.
    untraced = [s["cpu"] for s in samples.get("none", [])]
    # The untraced call returns at once (a few ns); any probe hit costs 250 ns or more.
    clean = [i for i, ns in enumerate(untraced) if ns <= 50] if untraced else list(range(reps))
    if not clean:
        log("  WARNING: every round had foreign probes on the library; these figures are not clean")
        clean = list(range(reps))
    if len(clean) < reps:
        log(f"  dropped round(s) {[i + 1 for i in range(reps) if i not in clean]}: the untraced run was slow "
            f"({[round(ns) for ns in untraced]} ns/call), someone else's probes were on the library")
    return {name: {"cpu_ns": statistics.median(runs[i]["cpu"] for i in clean),
                   "wall_ns": statistics.median(runs[i]["wall"] for i in clean),
                   "samples_cpu_ns": [round(s["cpu"], 1) for s in runs],
                   "rounds_used": [i + 1 for i in clean],
                   "disturbed": bool(untraced) and all(ns > 50 for ns in untraced)}
            for name, runs in samples.items()}


def in_kernel(tracers, art, library, function, n, reps, log):
    """Per tracer: the BPF programs it loaded, with run_cnt and run_time_ns over n calls; the run
    with the median ns per call of `reps`."""
    old = set_bpf_stats(1)
    runs = {}
    try:
        for t in [t for _ in range(reps) for t in tracers]:
            if t.name == "none":
                continue
            existing = set(prog_stats())
            state = {}

            def snapshot():
                stats = prog_stats()
                if "ids" not in state:
                    state["ids"] = set(stats) - existing
                return {i: stats[i] for i in state["ids"] if i in stats}

            r = run_caller(art, t, library, function, n, during=snapshot)
            before, after = r["during"]
            progs = []
            for pid, (name, cnt, ns) in after.items():
                b = before.get(pid, (name, 0, 0))
                if cnt - b[1] > 0:
                    progs.append({"name": name, "run_cnt": cnt - b[1], "run_time_ns": ns - b[2],
                                  "ns_per_run": round((ns - b[2]) / (cnt - b[1]), 1)})
            total = sum(p["run_time_ns"] for p in progs)
            calls = n + n // 100 + 1  # the caller's warm-up runs after the first snapshot too
            run = {"programs": progs, "ns_per_call": round(total / calls, 1)}
            runs.setdefault(t.name, []).append(run)
            log(f"  in-kernel {t.name:<16} {run['ns_per_call']:6.1f} ns/call over "
                + ", ".join(f"{p['name']} {p['ns_per_run']} ns x {p['run_cnt']}" for p in progs))
    finally:
        set_bpf_stats(old)
    result = {}
    for name, rs in runs.items():
        rs.sort(key=lambda r: r["ns_per_call"])
        result[name] = dict(rs[len(rs) // 2], samples_ns_per_call=[r["ns_per_call"] for r in rs])
    return result
