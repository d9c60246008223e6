"""5. `seam lint rules/ stdlib/` wall time."""
import statistics
import subprocess
import time


def measure(art, reps, log):
    times = []
    for _ in range(reps):
        t0 = time.monotonic()
        subprocess.run([art.seam, "lint", "rules/", "stdlib/"], cwd=art.repo, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.monotonic() - t0) * 1e3)
    log(f"  seam lint rules/ stdlib/: {', '.join(f'{t:.1f}' for t in times)} ms")
    return {"ms": statistics.median(times), "samples_ms": [round(t, 1) for t in times]}
