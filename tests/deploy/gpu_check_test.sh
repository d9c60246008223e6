#!/usr/bin/env bash
# scripts/gpu-check.sh end to end up to the step that needs a GPU: `prepare` builds the kit (seam
# with its libraries and loader, the default pack's bundle, the nvcc-built program and the real
# libcudart), `run` runs it with no clang on PATH. Here there is no driver, so the program fails;
# the bundle must load and the probes on the kit's real libcudart must fire: seam's sync_latency
# metric counts the program's cudaStreamSynchronize calls by pid (5 rounds, held and released).
# Usage: gpu_check_test.sh BUILD_DIR SOURCE_DIR PYTHON (root; skips without nvcc outside CI)
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2") python=$3
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
if [[ ! -x $nvcc ]]; then
  [[ ${CI:-} == true ]] && { echo "gpu_check_test: no nvcc at $nvcc" >&2; exit 1; }
  echo "gpu_check_test: skipped: no nvcc at $nvcc"; exit 0
fi
work=$(mktemp -d /tmp/seam-gpu-check-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "gpu_check_test: $*" >&2; cat "$work/out/summary.txt" "$work/out/seam-stderr.txt" >&2 2>/dev/null || true; exit 1; }

SEAM=$build/seam bash "$src/scripts/gpu-check.sh" prepare "$work/kit" >"$work/prepare.log" 2>&1 || fail "prepare: $(cat "$work/prepare.log")"
for f in seam default-pack.seamb gpuspin libgpuspin.so gil.py; do [[ -e $work/kit/$f ]] || fail "the kit has no $f"; done
ls "$work"/kit/lib/libcudart.so.* >/dev/null || fail "the kit has no libcudart"
mkdir -p "$work/nobin" "$work/out"
# As on the GPU machine: no clang (nothing on PATH but the basics), the kit alone.
OUT=$work/out PATH=/usr/bin:/bin SEAM_CLANG=/nonexistent/clang PYTHON=$python SEAM_GPU_CHECK_PORT=0 \
  bash "$src/scripts/gpu-check.sh" run "$work/kit" >"$work/run.log" 2>&1 || fail "run: $(cat "$work/run.log")"
summary=$(cat "$work/out/summary.txt")
grep -q '"notice":"ready"' "$work/out/alerts.jsonl" || fail "seam did not get ready on the bundle"
grep -q "probes attached" <<<"$summary" || fail "no ready notice in the summary"
pid=$(sed -n 's/^gpuspin (pthread mutex as the GIL) pid \([0-9]*\) exit \([0-9]*\).*/\1/p' <<<"$summary")
rc=$(sed -n 's/^gpuspin (pthread mutex as the GIL) pid \([0-9]*\) exit \([0-9]*\).*/\2/p' <<<"$summary")
[[ -n $pid ]] || fail "the summary does not name the program's pid"
[[ $rc != 0 ]] || fail "the program succeeded: is there a GPU here? then this test's premise is wrong"
grep -q "no device" "$work/out/program.txt" || grep -q "driver" "$work/out/program.txt" || fail "the program did not fail for want of a device: $(cat "$work/out/program.txt")"
grep -q "\"message\":\"[0-9]* probes on $work/kit/lib/libcudart.so" "$work/out/alerts.jsonl" ||
  grep -q "probes on [^\"]*$work/kit/lib/libcudart.so" "$work/out/alerts.jsonl" || fail "no probes on the kit's libcudart"
count=$(sed -n "s/^seam_sync_latency_seconds_count{pid=\"$pid\"} \([0-9]*\)$/\1/p" "$work/out/metrics.txt")
[[ ${count:-0} -ge 10 ]] || fail "seam_sync_latency_seconds_count for pid $pid is '${count:-absent}', not 10: $(grep sync_latency_count "$work/out/metrics.txt")"
echo "gpu_check_test: ok: bundle loaded with no clang, $count syncs of pid $pid seen on the real libcudart"
