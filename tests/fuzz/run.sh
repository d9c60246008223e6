#!/usr/bin/env bash
# Builds the fuzzers with clang (libFuzzer + ASan + UBSan) and runs each for a bounded time with a
# corpus seeded from the shipped stdlib/ and rules/ files:
#   fuzz_parse    the parser alone
#   fuzz_codegen  parse, check, lower and generate; the generated C must keep the escaping invariant
#   tests/fuzz/run.sh [SECONDS] [TARGET...]   (default 60 seconds each, both targets; env BUILD_DIR, JOBS)
# Exit status 0: no crash, hang, leak or invariant break; otherwise the input is in
# $BUILD_DIR/fuzz-artifacts/ (re-run it: build-fuzz/tests/fuzz/fuzz_codegen FILE).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parse codegen)
build="${BUILD_DIR:-$root/build-fuzz}"
jobs="${JOBS:-2}"

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSEAM_FUZZ=ON >/dev/null
cmake --build "$build" -j"$jobs" --target "${targets[@]/#/fuzz_}"

artifacts="$build/fuzz-artifacts/"
mkdir -p "$artifacts"
for target in "${targets[@]}"; do
  corpus="$build/fuzz-corpus/$target"
  mkdir -p "$corpus"
  for f in "$root"/stdlib/*.seam "$root"/rules/*.seam "$root"/tests/fuzz/seeds/*.seam; do
    [ -e "$f" ] && cp "$f" "$corpus/seed-$(basename "$f")"
  done
  "$build/tests/fuzz/fuzz_$target" "$corpus" -dict="$root/tests/fuzz/seam.dict" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -max_total_time="$seconds" -artifact_prefix="$artifacts" -print_final_stats=1
done
