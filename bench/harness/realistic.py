"""4. Realistic slowdown: demo/inference_loop.py (ctypes calls into the fixture library, the GIL
held on even steps and released on odd ones, --sync-us 0) untraced and under the default pack,
on the tests' fixture and on the real-shaped build of it (every entry `push %rbp`, like the real
libcudart.so.13; in the tests' build cudaLaunchKernel is single-stepped). A third configuration runs
the pack without its GIL rules (rules/gil.seam, rules/gil_wait.seam), so the GIL rules' share of
the slowdown is its own figure (issue 11 asks for the ratio with and without them)."""
import glob
import os
import statistics
import time

from . import tracers
from .procs import Proc, cpu_seconds

LAUNCHES, MALLOC_EVERY = 4, 10
GIL_RULES = ("gil.seam", "gil_wait.seam")
MODES = ("untraced", "default pack", "pack without GIL rules")


def pack_without_gil(art):
    """The default pack's files (rules/, what `seam run` with no path loads) less the GIL rules."""
    files = sorted(glob.glob(os.path.join(art.repo, "rules", "*.seam")))
    return [f for f in files if os.path.basename(f) not in GIL_RULES]


def tracer_for(art, mode, cache_dir):
    if mode == "default pack":
        return tracers.Seam(art, [], cache_dir=cache_dir)
    if mode == "pack without GIL rules":
        return tracers.Seam(art, pack_without_gil(art), cache_dir=cache_dir)
    return None


def one_run(art, lib, steps, tracer):
    loop = os.path.join(art.repo, "demo", "inference_loop.py")
    proc = Proc([art.python, loop, lib, "--steps", str(steps), "--sync-us", "0", "--gil", "both",
                 "--malloc-every", str(MALLOC_EVERY), "--launches", str(LAUNCHES), "--wait-for-go"], stdin=True)
    try:
        proc.wait_line(lambda s, l: s == "out" and l == "ready", 30)
        if tracer:
            tracer.start()
        cpu0 = cpu_seconds(proc.pid)
        t0 = time.monotonic()
        proc.send("go\n")
        # The loop prints "done" and exits: its CPU time is read from its rusage at exit.
        ru = os.wait4(proc.pid, 0)[2]
        elapsed = time.monotonic() - t0
        proc.proc.returncode = 0
    finally:
        if tracer:
            tracer.stop()
    calls = steps * (LAUNCHES + 1) + (steps + MALLOC_EVERY - 1) // MALLOC_EVERY
    cpu = ru.ru_utime + ru.ru_stime - cpu0
    return {"calls": calls, "calls_per_s": calls / elapsed, "calls_per_cpu_s": calls / max(cpu, 1e-9)}


def measure(art, steps, reps, cache_dir, log):
    libs = {"fixture": art.fixture, "real-shaped": art.real_shaped}
    runs = {f"{lib} {mode}": [] for lib in libs for mode in MODES}
    probes = {}
    for rep in range(reps):
        for name in runs:
            lib, mode = name.split(" ", 1)
            tracer = tracer_for(art, mode, cache_dir)
            r = one_run(art, libs[lib], steps, tracer)
            runs[name].append(r)
            if tracer and mode == "default pack":
                probes[lib] = [n["message"] for n in tracer.notices()
                               if "probes" in n["message"] or "single-stepped" in n["message"]]
            log(f"  {name:<36} rep {rep + 1}/{reps}: {r['calls_per_s'] / 1e3:7.1f}k calls/s wall, "
                f"{r['calls_per_cpu_s'] / 1e3:7.1f}k calls per CPU-second")
    out = {name: {"calls_per_s": statistics.median(r["calls_per_s"] for r in rs),
                  "calls_per_cpu_s": statistics.median(r["calls_per_cpu_s"] for r in rs),
                  "calls": rs[0]["calls"]} for name, rs in runs.items()}
    out["seam_attached"] = probes
    out["without_gil_files"] = [os.path.basename(f) for f in pack_without_gil(art)]
    for lib in libs:
        u = out[f"{lib} untraced"]
        for mode in MODES[1:]:
            t = out[f"{lib} {mode}"]
            log(f"  {lib} {mode}: {u['calls_per_s'] / t['calls_per_s']:.2f}x slower "
                f"({u['calls_per_s'] / 1e3:.1f}k -> {t['calls_per_s'] / 1e3:.1f}k calls/s wall), "
                f"{u['calls_per_cpu_s'] / t['calls_per_cpu_s']:.2f}x in CPU seconds")
    return out
