"""6. `ustack` without frame pointers (issue 12): the in-kernel cost of the 8 KiB user stack copy,
from bpf_prog_info (kernel.bpf_stats_enabled), as the difference between the same rule run with
`--ustack-copy 8` and `--ustack-copy 0` on a caller whose stack is deep enough to copy all 8 KiB;
and the user-space cost of unwinding and naming one alert's stack with warm caches
(build/unwind_bench: the pipeline's StackUnwinder on a recorded stack)."""
import json
import os
import subprocess

from . import cost
from .procs import Proc
from .tracers import Seam

RULE = """use cuda
rule every_sync
    on cudaStreamSynchronize
    alert info "sync"
    with ustack
    limit 1 per 1h
"""


def one_run(art, rule, copy_kib, n, log):
    env = dict(os.environ, CALLER_STACK_KIB="12")  # more stack above the call than the copy takes
    json_out = os.path.join(art.out, f"ustack-{copy_kib}.jsonl")
    seam = Seam(art, [rule], json_out=json_out, name=f"copy-{copy_kib}k",
                extra=["--ustack-copy", str(copy_kib), "--ringbuf-size", "65536"])
    caller = Proc([art.caller, art.fixture, "cudaStreamSynchronize", str(n), "--wait"], env=env, stdin=True)
    try:
        caller.wait_line(lambda s, l: s == "out" and l == "ready", 10)
        existing = set(cost.prog_stats())
        seam.start()
        # seam's programs on the probed functions are named site<N>; another tool that loads
        # programs meanwhile (a shared machine) must not count.
        ids = {i for i, st in cost.prog_stats().items() if i not in existing and st[0].startswith("site")}
        before = {i: s for i, s in cost.prog_stats().items() if i in ids}
        caller.send("go\n")
        caller.wait_line(lambda s, l: s == "out" and l.startswith("cpu"), 600)
        after = {i: s for i, s in cost.prog_stats().items() if i in ids}
    finally:
        seam.stop()
        caller.stop()
    runs = sum(a[1] - before.get(i, (0, 0, 0))[1] for i, a in after.items())
    ns = sum(a[2] - before.get(i, (0, 0, 0))[2] for i, a in after.items())
    drops = sum(x.get("count", 0) for x in seam.notices() if x.get("notice") == "drops")
    calls = n + n // 100 + 1  # with the caller's warm-up
    row = {"ns_per_call": round(ns / calls, 1), "program_runs": runs, "drops_reported": drops}
    log(f"  ustack copy {copy_kib} KiB: {row['ns_per_call']} ns/call in the kernel ({runs} program runs, "
        f"{drops} records dropped and reported)")
    return row


def measure(art, unwind_bench, n, reps, bench_n, log):
    rule = os.path.join(art.out, "ustack.seam")
    with open(rule, "w") as f:
        f.write(RULE)
    old = cost.set_bpf_stats(1)
    rows = {"copy": [], "fp": []}
    try:
        for _ in range(reps):
            rows["copy"].append(one_run(art, rule, 8, n, log))
            rows["fp"].append(one_run(art, rule, 0, n, log))
    finally:
        cost.set_bpf_stats(old)
    # A dropped record copies nothing: a run whose ring filled (reported drops) understates the
    # copy, so it is left out where a run without drops exists.
    def med(rs):
        clean = [r for r in rs if r["drops_reported"] == 0] or rs
        return sorted(r["ns_per_call"] for r in clean)[len(clean) // 2]

    copy_ns = med(rows["copy"]) - med(rows["fp"])
    out = {"calls": n, "reps": reps, "rows": rows, "copy_8k_ns": round(copy_ns, 1)}
    log(f"  the 8 KiB copy costs {copy_ns:.0f} ns per record in the kernel")
    if not unwind_bench or not os.path.exists(unwind_bench):
        out["user_space_error"] = f"no unwind_bench at {unwind_bench!r} (cmake --build BUILD --target unwind_bench)"
        log("  " + out["user_space_error"])
        return out
    res = subprocess.run([unwind_bench, str(bench_n), "16"], capture_output=True, text=True, timeout=300)
    if res.returncode == 0:
        out["user_space"] = json.loads(res.stdout.strip().splitlines()[-1])
        u = out["user_space"]
        log(f"  unwinding and naming: {u['warm_us']} us per alert warm ({u['frames']} frames), "
            f"{u['cold_us']} us cold")
    else:
        out["user_space_error"] = res.stderr[-2000:]
    return out
