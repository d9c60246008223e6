"""3. Event pipeline: a rule that matches every call (bench/rules/every.seam) into a JSON file,
at the full rate of the tight-loop caller. Records delivered, seam's CPU per record, drops."""
import json
import os
import time

from . import tracers
from .procs import Proc, cpu_seconds


def wait_file_stable(path, quiet_s=0.3, limit_s=20.0):
    """Waits until the file stops growing; returns the time it last grew."""
    last_size, last_change = -1, time.monotonic()
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        size = os.path.getsize(path)
        now = time.monotonic()
        if size != last_size:
            last_size, last_change = size, now
        elif now - last_change >= quiet_s:
            break
        time.sleep(0.01)
    return last_change


def one_run(art, rule_file, n, cache_dir, json_out):
    caller = Proc([art.caller, art.fixture, "cudaStreamSynchronize", str(n), "--wait"], stdin=True)
    caller.wait_line(lambda s, l: s == "out" and l == "ready", 10)
    seam = tracers.Seam(art, [rule_file], json_out=json_out, cache_dir=cache_dir, name="seam-every")
    seam.start()
    cpu0 = cpu_seconds(seam.proc.pid)
    t_go = time.monotonic()
    caller.send("go\n")
    _, _, call_line = caller.wait_line(lambda s, l: s == "out" and l.startswith("cpu"), 600)
    t_calls_done = time.monotonic()
    caller.stop()
    t_last = wait_file_stable(json_out)
    cpu1 = cpu_seconds(seam.proc.pid)
    seam.stop()
    # Other sessions' programs may call the same library meanwhile: count only the caller's.
    # Every kind of loss the file is told of: the ring's (`drops`) and the file's own queue or
    # writes (`output-drops` about this output); a record neither delivered nor told is silent.
    alerts, foreign, drops, output_drops, stopped = 0, 0, 0, 0, ""
    with open(json_out) as f:
        for line in f:
            # Lines start with {"schema":1,...}: a notice is a line with a "notice" key.
            obj = json.loads(line)
            if "notice" in obj:
                n_ = obj
                if n_["notice"] == "drops":
                    drops += n_.get("count", 0)
                elif n_["notice"] == "output-drops" and n_.get("output") == f"json:{json_out}":
                    output_drops += n_.get("count", 0)
                elif n_["notice"] == "stopped":
                    stopped = n_["message"]
            elif obj.get("pid") == caller.proc.pid:
                alerts += 1
            else:
                foreign += 1
    calls = n + n // 100 + 1
    return {"calls": calls, "caller_cpu_ns_per_call": float(call_line.split()[1]), "alerts": alerts, "foreign_records": foreign, "reported_drops": drops + output_drops,
            "ring_drops": drops, "output_drops": output_drops,
            "silent_drops": calls - alerts - drops - output_drops, "stopped": stopped,
            "call_rate": calls / (t_calls_done - t_go), "delivered_per_s": alerts / max(t_last - t_go, 1e-9),
            "seam_cpu_s": cpu1 - cpu0, "cpu_ns_per_record": (cpu1 - cpu0) * 1e9 / max(alerts, 1)}


def measure(art, n, reps, cache_dir, log):
    rule_file = os.path.join(art.repo, "bench", "rules", "every.seam")
    runs = []
    for rep in range(reps):
        r = one_run(art, rule_file, n, cache_dir, os.path.join(art.out, "every.json"))
        runs.append(r)
        log(f"  every-call rep {rep + 1}/{reps}: {r['alerts']} records of {r['calls']} calls, "
            f"{r['delivered_per_s'] / 1e3:.0f}k/s delivered (calls at {r['call_rate'] / 1e3:.0f}k/s), "
            f"{r['cpu_ns_per_record']:.0f} ns seam CPU/record, caller {r['caller_cpu_ns_per_call']:.0f} ns CPU/call, drops {r['reported_drops']} reported "
            f"({r['ring_drops']} ring, {r['output_drops']} the file's queue), "
            f"{r['silent_drops']} silent; {r['stopped']}")
    best = sorted(runs, key=lambda r: r["cpu_ns_per_record"])[len(runs) // 2]  # the median run
    return {"median_run": best, "runs": runs}
