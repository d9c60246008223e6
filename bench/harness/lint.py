"""5. `seam lint rules/ stdlib/` wall time, and `seam --help` as the floor: starting the process."""
import statistics
import subprocess
import time


def measure(art, reps, log):
    times = {"lint": [], "help": []}
    for _ in range(reps):  # interleaved, so both see the same load
        for name, args in (("lint", ["lint", "rules/", "stdlib/"]), ("help", ["--help"])):
            t0 = time.monotonic()
            subprocess.run([art.seam, *args], cwd=art.repo, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append((time.monotonic() - t0) * 1e3)
    for name, ts in times.items():
        log(f"  seam {name}: {', '.join(f'{t:.1f}' for t in ts)} ms")
    return {"ms": statistics.median(times["lint"]), "samples_ms": [round(t, 1) for t in times["lint"]],
            "help_ms": statistics.median(times["help"]), "help_samples_ms": [round(t, 1) for t in times["help"]]}
