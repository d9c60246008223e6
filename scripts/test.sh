#!/usr/bin/env bash
# The whole test suite, as CI runs it: install what is missing, check the formatting, build, run
# every test. BPF tests need root; under CI=true they fail rather than skip when they lack
# privileges.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
build=${SEAM_BUILD_DIR:-build}
# clang-format first: it fails in a second. (clang-tidy: scripts/check-style.sh without SEAM_TIDY=0.)
SEAM_TIDY=0 bash scripts/check-style.sh "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${SEAM_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure --timeout 300 "$@"
