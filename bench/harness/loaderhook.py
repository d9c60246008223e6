"""10. The dynamic loader hook's host cost: a dlopen/dlclose loop of the fixture library (ld.so
calls _dl_debug_state four times a pair, each a uprobe hit on seam's hook) and fork+exec+wait of
/bin/true (a dynamic program: two hits and a walk of its loaded objects), with nothing running
and with seam running rules/gil.seam. The names are marked seen after the first, so this is the
steady state every process on the host pays. CPU ns per pair, wall us per exec, median of reps."""
import os
import re
import statistics
import subprocess

from . import tracers

LINE = re.compile(r"dlopen_ns ([\d.]+) exec_us ([\d.]+)")


def one(art, n):
    out = subprocess.run([art.loader_cost, str(n), art.fixture, "/bin/true"], check=True,
                         capture_output=True, text=True).stdout
    m = LINE.search(out)
    return float(m.group(1)), float(m.group(2))


def row(art, n, reps):
    runs = [one(art, n) for _ in range(reps)]
    return {"dlopen_ns": statistics.median(r[0] for r in runs), "exec_us": statistics.median(r[1] for r in runs)}


def measure(art, n, reps, warm_cache, log):
    out = {"pairs": n, "execs": max(n // 10, 1), "reps": reps, "loadavg_start": os.getloadavg()[0]}
    out["none"] = row(art, n, reps)
    log(f"  none: {out['none']}")
    seam = tracers.Seam(art, [os.path.join(art.repo, "rules", "gil.seam")], cache_dir=warm_cache,
                        name="seam-loader")
    seam.start(timeout=180)
    try:
        one(art, 10)  # the names are sent once, then marked seen: measure the steady state
        out["seam"] = row(art, n, reps)
        out["hook_unavailable"] = any("loader-hook-unavailable" in line for line in seam.proc.text().splitlines())
    finally:
        seam.stop()
    log(f"  seam: {out['seam']}")
    out["added_dlopen_ns"] = out["seam"]["dlopen_ns"] - out["none"]["dlopen_ns"]
    out["added_exec_us"] = out["seam"]["exec_us"] - out["none"]["exec_us"]
    out["loadavg_end"] = os.getloadavg()[0]
    return out
