"""6. Host tax and in-scope syscall cost: a getppid() loop (a syscall no pack rule watches),
first-touch page faults and a write() loop to /dev/null (a syscall the pack names) in a
process outside every rule's scope (no workload library) and in a workload process (it dlopens
the fixture libcudart), with nothing running, with the default pack (rules/), and with bpftrace
running the playbook's "syscalls over 1 ms" script, and with two floors (bpftrace programs that
return at once: FLOOR_SCRIPTS). CPU time per operation, median of reps. Then,
per tracer, one more bystander run and one more workload run with kernel.bpf_stats_enabled=1:
the run_time_ns/run_cnt of each program the tracer loaded that ran, their sum per syscall of the
getppid loop, and their sum per write() (separately from the timed runs, since the stats
themselves cost time). The workload's write programs run past the scope test, the bystander's
return at it: the difference is what being in scope costs in the programs themselves."""
import json
import os
import re
import statistics
import subprocess
import time

from . import tracers
from .cost import prog_stats, set_bpf_stats

LINE = re.compile(r"syscall_ns ([\d.]+) fault_ns ([\d.]+) write_ns ([\d.]+)")

SLOW_SYSCALLS_BT = """BEGIN { printf("ready\\n"); }
tracepoint:raw_syscalls:sys_enter { @start[tid] = nsecs; }
tracepoint:raw_syscalls:sys_exit /@start[tid]/ {
  $d = nsecs - @start[tid];
  delete(@start[tid]);
  if ($d > 1000000) { printf("%s %d syscall %d took %d us\\n", comm, pid, args->id, $d / 1000); }
}
"""


# Floors: what any tracer pays for a bystander's syscall before its program does anything. The
# predicate is never true (pid 0 makes no syscalls), so each program returns at once. Only the
# futex tracepoints: the syscall slow path that any syscall tracepoint switches on for every task,
# with no program run for getppid. raw_syscalls: that and one program on every syscall, entry and
# exit (bpftrace attaches perf tracepoints; seam's raw tracepoints skip the perf buffer's copy).
FLOOR_SCRIPTS = {
    "floor_futex_tracepoints": """BEGIN { printf("ready\\n"); }
tracepoint:syscalls:sys_enter_futex /pid == 0/ { @e = count(); }
tracepoint:syscalls:sys_exit_futex /pid == 0/ { @x = count(); }
""",
    "floor_raw_syscalls": """BEGIN { printf("ready\\n"); }
tracepoint:raw_syscalls:sys_enter /pid == 0/ { @e = count(); }
tracepoint:raw_syscalls:sys_exit /pid == 0/ { @x = count(); }
""",
}


def one(art, calls, library, in_scope=None):
    """One run of the workload. With in_scope (a test of its pid), only its writes, once the test
    holds (10 s at most: then it runs anyway, and its figures say it was not in scope)."""
    if in_scope is None:
        cmd = [art.host_tax, str(calls)] + ([library] if library else [])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    else:
        p = subprocess.Popen([art.host_tax, str(calls), library or "-", "write"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        p.stdout.readline()  # "ready": the library is mapped
        deadline = time.monotonic() + 10
        while not in_scope(p.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        out, _ = p.communicate("go\n")
    m = LINE.search(out)
    return float(m.group(1)), float(m.group(2)), float(m.group(3))


def rows_for(art, calls, reps):
    r = {}
    for who, lib in (("bystander", ""), ("workload", art.fixture)):
        runs = [one(art, calls, lib) for _ in range(reps)]
        r[who] = {"syscall_ns": statistics.median(x[0] for x in runs),
                  "fault_ns": statistics.median(x[1] for x in runs),
                  "write_ns": statistics.median(x[2] for x in runs)}
    return r


def typed_stats():
    """id -> (name and program type, run_cnt, run_time_ns) for every loaded BPF program."""
    out = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True).stdout
    return {p["id"]: (f"{p.get('name', '?')}({p.get('type', '?')})", p.get("run_cnt", 0), p.get("run_time_ns", 0))
            for p in json.loads(out or "[]")}


def in_kernel(art, calls, mine, log, name, who="bystander", library="", in_scope=lambda pid: True):
    """The programs in `mine` (ids) that ran during one run of `who`, with bpf_stats on. run_cnt
    counts every process's syscalls in that time (the host's too), so the sums are taken per run:
    `per_syscall_ns` adds ns_per_run of the programs that ran at least once per call of the getppid
    loop (those on every syscall); `per_write_ns` those that ran at least once per write() in a
    second run that makes only the writes (calls / 10 of them: the write tracepoints' programs),
    once `in_scope` holds for its pid."""
    def ran(only_writes):
        old = set_bpf_stats(1)
        try:
            before = {i: v for i, v in typed_stats().items() if i in mine}
            one(art, calls, library, in_scope if only_writes else None)
            after = {i: v for i, v in typed_stats().items() if i in mine}
        finally:
            set_bpf_stats(old)
        progs = []
        for pid, (pname, cnt, ns) in sorted(after.items()):
            b = before.get(pid, (pname, 0, 0))
            if cnt - b[1] > 0:
                progs.append({"name": pname, "run_cnt": cnt - b[1], "run_time_ns": ns - b[2],
                              "ns_per_run": round((ns - b[2]) / (cnt - b[1]), 1)})
        return progs

    progs = ran(False)
    every = [p for p in progs if p["run_cnt"] >= calls]
    writes = [p for p in ran(True) if p["run_cnt"] >= calls // 10]
    r = {"programs": progs, "per_syscall_ns": round(sum(p["ns_per_run"] for p in every), 1),
         "write_programs": writes, "per_write_ns": round(sum(p["ns_per_run"] for p in writes), 1)}

    def listed(ps):
        return ", ".join(f"{p['name']} {p['ns_per_run']} ns x {p['run_cnt']}" for p in ps)
    log(f"  in-kernel {name:<9} {who:<9} {r['per_syscall_ns']:6.1f} ns per syscall in the programs on every syscall ("
        + listed(every) + f"); {r['per_write_ns']:6.1f} ns per write ({listed(writes)}); others: "
        + listed([p for p in progs if p not in every]))
    return r


def measure(art, calls, reps, warm_cache, log):
    out = {"calls": calls, "reps": reps, "loadavg_start": os.getloadavg()[0]}
    out["none"] = rows_for(art, calls, reps)
    log(f"  none:     {out['none']}")
    existing = set(prog_stats())
    seam = tracers.Seam(art, [], cache_dir=warm_cache, name="seam-pack")
    seam.start(timeout=180)
    try:
        out["seam_pack"] = rows_for(art, calls, reps)
        ours = set(prog_stats()) - existing
        out["seam_pack_in_kernel"] = in_kernel(art, calls, ours, log, "seam")
        out["seam_pack_in_kernel_workload"] = in_kernel(
            art, calls, ours, log, "seam", "workload", art.fixture,
            lambda pid: any(f"pid {pid} " in n["message"] and "in scope" in n["message"] for n in seam.notices()))
    finally:
        seam.stop()
    log(f"  seam:     {out['seam_pack']}")
    script = os.path.join(art.out, "slow_syscalls.bt")
    with open(script, "w") as f:
        f.write(SLOW_SYSCALLS_BT)
    existing = set(prog_stats())
    bt = tracers.Bpftrace(art, script, "bpftrace-slow-syscalls")
    bt.start()
    try:
        out["bpftrace"] = rows_for(art, calls, reps)
        out["bpftrace_in_kernel"] = in_kernel(art, calls, set(prog_stats()) - existing, log, "bpftrace")
    finally:
        bt.stop()
    log(f"  bpftrace: {out['bpftrace']}")
    for name, text in FLOOR_SCRIPTS.items():
        path = os.path.join(art.out, name + ".bt")
        with open(path, "w") as f:
            f.write(text)
        floor = tracers.Bpftrace(art, path, name)
        floor.start()
        try:
            out[name] = rows_for(art, calls, reps)
        finally:
            floor.stop()
        log(f"  {name}: {out[name]}")
    for t in ("seam_pack", "bpftrace", *FLOOR_SCRIPTS):
        for who in ("bystander", "workload"):
            row, base = out[t][who], out["none"][who]
            row["added_syscall_ns"] = row["syscall_ns"] - base["syscall_ns"]
            row["added_write_ns"] = row["write_ns"] - base["write_ns"]
            row["fault_pct"] = 100.0 * (row["fault_ns"] / base["fault_ns"] - 1)
    out["loadavg_end"] = os.getloadavg()[0]
    return out
