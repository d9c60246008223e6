"""9. Python frames (issue 12): the in-kernel cost of walking a 32-frame Python stack, from
bpf_prog_info (kernel.bpf_stats_enabled), as the difference between the same rule on a Python
caller 31 functions deep (plus <module>) with `with pystack` and without; and the user-space
cost of naming one alert's frames (build/pyframes_bench: the pipeline's PyStackNamer on the
frames seam recorded, against the live process), cold and with the cache warm."""
import glob
import json
import os
import subprocess

from . import cost
from .procs import Proc
from .tracers import Seam

DEPTH = 31  # functions; with <module>, 32 Python frames

SCRIPT = """import ctypes, sys
lib = ctypes.PyDLL(sys.argv[1])
lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
n = int(sys.argv[2])
def deep(k):
    if k > 1:
        return deep(k - 1)
    print("ready", flush=True)
    sys.stdin.readline()
    for _ in range(n):
        lib.cudaStreamSynchronize(ctypes.c_void_p(0))
    print("cpu", flush=True)
    sys.stdin.readline()
deep(%d)
""" % DEPTH

RULE = """use cuda, python
rule every_sync
    on cudaStreamSynchronize
    alert info "sync"
    with %s
    limit 1 per 1h
"""


def python_3_12():
    """A pyenv CPython whose layout the bench's namer has in its table (3.8 to 3.12), newest first."""
    for minor in (12, 11, 10, 9, 8):
        found = sorted(glob.glob(f"/root/.pyenv/versions/3.{minor}.*/bin/python3.{minor}"))
        if found:
            return found[-1], minor
    return "", 0


def one_run(art, python, script, rule, name, n, log, keep_alive=False, timed=True):
    json_out = os.path.join(art.out, f"pyframes-{name}.jsonl")
    caller = Proc([python, script, art.fixture, str(n)], stdin=True)
    seam = Seam(art, [rule], json_out=json_out, name=f"pyframes-{name}",
                extra=["--pid", str(caller.pid), "--ringbuf-size", "65536"])
    try:
        caller.wait_line(lambda s, l: s == "out" and l == "ready", 20)
        existing = set(cost.prog_stats())
        seam.start()
        ids = {i for i, st in cost.prog_stats().items() if i not in existing and st[0].startswith("site")}
        before = {i: s for i, s in cost.prog_stats().items() if i in ids}
        caller.send("go\n")
        caller.wait_line(lambda s, l: s == "out" and l == "cpu", 600)
        after = {i: s for i, s in cost.prog_stats().items() if i in ids}
    finally:
        seam.stop()
        if not keep_alive:
            caller.stop()
    ns = sum(a[2] - before.get(i, (0, 0, 0))[2] for i, a in after.items())
    runs = sum(a[1] - before.get(i, (0, 0, 0))[1] for i, a in after.items())
    drops = sum(x.get("count", 0) for x in seam.notices() if x.get("notice") == "drops")
    row = {"ns_per_call": round(ns / n, 1), "program_runs": runs, "drops_reported": drops}
    if timed:  # the naming run keeps the process for pyframes_bench; bpf_stats are off then
        log(f"  {name}: {row['ns_per_call']} ns/call in the kernel ({runs} program runs, {drops} records dropped)")
    return row, json_out, caller


def measure(art, bench, n, reps, bench_n, log):
    python, minor = python_3_12()
    if not python:
        return {"error": "no pyenv CPython 3.8 to 3.12 under /root/.pyenv/versions"}
    script = os.path.join(art.out, "pyframes.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    rules = {}
    for name, items in (("pystack", "pystack"), ("none", "pid")):
        rules[name] = os.path.join(art.out, f"pyframes-{name}.seam")
        with open(rules[name], "w") as f:
            f.write(RULE % items)
    old = cost.set_bpf_stats(1)
    rows = {"pystack": [], "none": []}
    try:
        for _ in range(reps):
            for name in ("pystack", "none"):
                row, _, _ = one_run(art, python, script, rules[name], name, n, log)
                rows[name].append(row)
    finally:
        cost.set_bpf_stats(old)

    def med(rs):
        clean = [r for r in rs if r["drops_reported"] == 0] or rs
        return sorted(r["ns_per_call"] for r in clean)[len(clean) // 2]

    walk_ns = med(rows["pystack"]) - med(rows["none"])
    out = {"python": python, "frames": DEPTH + 1, "calls": n, "reps": reps, "rows": rows,
           "walk_32_ns": round(walk_ns, 1)}
    log(f"  the {DEPTH + 1}-frame Python walk costs {walk_ns:.0f} ns per record in the kernel")
    if not bench or not os.path.exists(bench):
        out["user_space_error"] = f"no pyframes_bench at {bench!r} (cmake --build BUILD --target pyframes_bench)"
        log("  " + out["user_space_error"])
        return out
    # The frames of one alert, named against the process that is still alive.
    _, json_out, caller = one_run(art, python, script, rules["pystack"], "naming", 10, log, keep_alive=True,
                                    timed=False)
    try:
        alert = next(a for a in map(json.loads, open(json_out)) if "pystack" in a)
        frames = [f"{f['addr']}:{f['offset']}" for f in alert["pystack"] if f.get("kind") == "python"]
        res = subprocess.run([bench, str(caller.pid), str(minor), str(bench_n), *frames],
                             capture_output=True, text=True, timeout=300)
    finally:
        caller.stop()
    if res.returncode == 0:
        out["user_space"] = json.loads(res.stdout.strip().splitlines()[-1])
        u = out["user_space"]
        log(f"  naming: {u['warm_us']} us per alert warm ({u['frames']} frames, {u['named_with_line']} with a line), "
            f"{u['cold_us']} us cold")
    else:
        out["user_space_error"] = res.stderr[-2000:]
    return out
