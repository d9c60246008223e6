"""7. The GIL path: a Python loop of time.sleep(0) (each call releases and retakes the GIL) untraced
and under rules/gil.seam (the headline rule, `while python.gil_held`). gil_held is read from the
interpreter's memory where the rule tests it, so no probe sits on the GIL's path: the target is
the same speed within noise (at most 1.05x). The loop's own CPU time (time.process_time()) is
measured, not wall time: sleep(0) yields the CPU, so on a loaded machine wall time measures the
other tasks. seam runs with `--pid` of the loop, as the other sections' tracers do: without it, on
this shared machine, seam's host-wide discovery (rescans of every process, attaching to other
sessions' callers) competes with the loop for the two cores, which is not the GIL path's cost.
The ratio is of the medians of `reps` runs."""
import statistics
import time

from .procs import Proc
from .tracers import Seam

LOOP = """
import sys, time
n = int(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
t0 = time.process_time()
for _ in range(n):
    time.sleep(0)
print("elapsed", time.process_time() - t0, flush=True)
"""


def one_run(art, iters, tracer):
    proc = Proc([art.python, "-c", LOOP, str(iters)], stdin=True)
    try:
        proc.wait_line(lambda s, l: s == "out" and l == "ready", 30)
        if tracer:  # the same seam, for this loop's process only
            tracer = Seam(tracer.art, tracer.paths, cache_dir=tracer.cache_dir, name=tracer.name,
                          extra=[*tracer.extra, "--pid", str(proc.pid)])
            tracer.start()
        proc.send("go\n")
        line = proc.wait_line(lambda s, l: s == "out" and l.startswith("elapsed"), 300)
        return float(line[2].split()[1])
    finally:
        if tracer:
            tracer.stop()
        proc.wait(10)


def measure(art, tracer, iters, reps, log):
    runs = {"untraced": [], "gil.seam": []}
    for rep in range(reps):
        for mode in runs:
            elapsed = one_run(art, iters, tracer if mode == "gil.seam" else None)
            runs[mode].append(elapsed)
            log(f"   {mode} rep {rep + 1}: {iters / elapsed:,.0f} sleep(0) per CPU second")
    med = {m: statistics.median(v) for m, v in runs.items()}
    return {"iters": iters, "reps": reps,
            "untraced_per_cpu_s": iters / med["untraced"], "traced_per_cpu_s": iters / med["gil.seam"],
            "slowdown": med["gil.seam"] / med["untraced"]}
