"""6. Host tax and in-scope syscall cost: a getppid() loop and first-touch page faults in a
process outside every rule's scope (no workload library) and in a workload process (it dlopens
the fixture libcudart), with nothing running, with the default pack (rules/), and with bpftrace
running the playbook's "syscalls over 1 ms" script. CPU time per operation, median of reps."""
import os
import re
import statistics
import subprocess

from . import tracers

LINE = re.compile(r"syscall_ns ([\d.]+) fault_ns ([\d.]+)")

SLOW_SYSCALLS_BT = """BEGIN { printf("ready\\n"); }
tracepoint:raw_syscalls:sys_enter { @start[tid] = nsecs; }
tracepoint:raw_syscalls:sys_exit /@start[tid]/ {
  $d = nsecs - @start[tid];
  delete(@start[tid]);
  if ($d > 1000000) { printf("%s %d syscall %d took %d us\\n", comm, pid, args->id, $d / 1000); }
}
"""


def one(art, calls, library):
    cmd = [art.host_tax, str(calls)] + ([library] if library else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = LINE.search(out)
    return float(m.group(1)), float(m.group(2))


def rows_for(art, calls, reps):
    r = {}
    for who, lib in (("bystander", ""), ("workload", art.fixture)):
        runs = [one(art, calls, lib) for _ in range(reps)]
        r[who] = {"syscall_ns": statistics.median(x[0] for x in runs),
                  "fault_ns": statistics.median(x[1] for x in runs)}
    return r


def measure(art, calls, reps, warm_cache, log):
    out = {"calls": calls, "reps": reps, "loadavg_start": os.getloadavg()[0]}
    out["none"] = rows_for(art, calls, reps)
    log(f"  none:     {out['none']}")
    seam = tracers.Seam(art, [], cache_dir=warm_cache, name="seam-pack")
    seam.start(timeout=180)
    try:
        out["seam_pack"] = rows_for(art, calls, reps)
    finally:
        seam.stop()
    log(f"  seam:     {out['seam_pack']}")
    script = os.path.join(art.out, "slow_syscalls.bt")
    with open(script, "w") as f:
        f.write(SLOW_SYSCALLS_BT)
    bt = tracers.Bpftrace(art, script, "bpftrace-slow-syscalls")
    bt.start()
    try:
        out["bpftrace"] = rows_for(art, calls, reps)
    finally:
        bt.stop()
    log(f"  bpftrace: {out['bpftrace']}")
    for t in ("seam_pack", "bpftrace"):
        for who in ("bystander", "workload"):
            row, base = out[t][who], out["none"][who]
            row["added_syscall_ns"] = row["syscall_ns"] - base["syscall_ns"]
            row["fault_pct"] = 100.0 * (row["fault_ns"] / base["fault_ns"] - 1)
    out["loadavg_end"] = os.getloadavg()[0]
    return out
