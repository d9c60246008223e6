#!/usr/bin/env bash
# Builds the parser fuzzer with clang (libFuzzer + ASan + UBSan) and runs it for a bounded time with a
# corpus seeded from the shipped stdlib/ and rules/ files.
#   tests/fuzz/run.sh [SECONDS]      (default 60; env BUILD_DIR, JOBS)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-60}"
build="${BUILD_DIR:-$root/build-fuzz}"
jobs="${JOBS:-2}"

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSEAM_FUZZ=ON >/dev/null
cmake --build "$build" -j"$jobs" --target fuzz_parse

corpus="$build/fuzz-corpus/parse"
mkdir -p "$corpus"
for f in "$root"/stdlib/*.seam "$root"/rules/*.seam; do
  [ -e "$f" ] && cp "$f" "$corpus/seed-$(basename "$f")"
done
artifacts="$build/fuzz-artifacts/"
mkdir -p "$artifacts"

"$build/tests/fuzz/fuzz_parse" "$corpus" -dict="$root/tests/fuzz/seam.dict" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 -max_total_time="$seconds" -artifact_prefix="$artifacts" -print_final_stats=1
