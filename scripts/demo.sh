#!/usr/bin/env bash
# The first command of the README: install what is missing, build seam, and run its main job,
# the default rule pack, against the bundled demo: a Python inference-like loop that calls a
# CUDA runtime (the fixture libcudart.so.12) with and without the GIL. Needs root (BPF).
# Arguments go to `seam run` (`bash scripts/demo.sh --listen 127.0.0.1:9500 -o json:/tmp/a.jsonl`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target seam fake_cudart >/dev/null

# A Python with a shared libpython whose take_gil/drop_gil symbols seam can probe.
python=python3
for v in /root/.pyenv/versions/3.11*/bin/python3 /root/.pyenv/versions/3.1[0-3]*/bin/python3; do
  if [ -x "$v" ]; then python=$v; break; fi
done

# The workload runs first; seam finds its libraries in /proc/PID/maps when it starts.
"$python" demo/inference_loop.py build/fixtures/libcudart.so.12 --steps 100000 --sync-us 20000 \
  --gil both --malloc-every 10 --pause-ms 100 >/dev/null &
demo=$!
trap 'kill $demo 2>/dev/null || true' EXIT
echo "seam: tracing the demo (pid $demo) with the default rules for ${SEAM_DEMO_SECONDS:-15} s..." >&2
./build/seam run rules/ --duration "${SEAM_DEMO_SECONDS:-15}" "$@"
