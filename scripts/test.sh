#!/usr/bin/env bash
# The whole test suite, as CI runs it (README, "What the test command checks"): install what is
# missing, check the formatting, build, run clang-tidy, run every test. BPF tests need root; under
# CI=true they fail rather than skip when they lack privileges. Arguments go to the first ctest run.
# Then the ASan+UBSan build and its tests (README, step 5).
#   SEAM_BUILD_DIR     build directory (default build; the sanitizer build goes to <it>-asan)
#   SEAM_SANITIZE_E2E  ctest regex of the e2e tests run under the sanitizers
# For local runs only (refused under CI=true): SEAM_TIDY=0 skips clang-tidy (SEAM_TIDY=all adds
# tests/), SEAM_SANITIZE=0 skips the sanitizer build and its tests.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${CI:-}" = true ] && [ "${SEAM_TIDY:-1}" = 0 ]; then
  echo "test: SEAM_TIDY=0 is for local runs; CI runs clang-tidy" >&2
  exit 1
fi
if [ "${CI:-}" = true ] && [ "${SEAM_SANITIZE:-1}" = 0 ]; then
  echo "test: SEAM_SANITIZE=0 is for local runs; CI runs the sanitizer build" >&2
  exit 1
fi
bash scripts/setup-deps.sh
build=${SEAM_BUILD_DIR:-build}
# clang-format first: it fails in a second.
SEAM_TIDY=0 bash scripts/check-style.sh "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${SEAM_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
# clang-tidy after the build: it reads the build's compile commands and generated headers.
if [ "${SEAM_TIDY:-1}" != 0 ]; then SEAM_FORMAT=0 bash scripts/check-style.sh "$build"; fi
(cd "$build" && ctest --output-on-failure --timeout 300 "$@")

if [ "${SEAM_SANITIZE:-1}" = 0 ]; then exit 0; fi
# The sanitizer build: seam, every unit test executable and the e2e executable, instrumented
# (CMakeLists.txt, SEAM_SANITIZE). Any report fails the test that triggered it
# (-fno-sanitize-recover; LeakSanitizer at exit).
asan="$build-asan"
start=$SECONDS
cmake -S . -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSEAM_SANITIZE=ON ${SEAM_CMAKE_ARGS:-} >/dev/null
cmake --build "$asan" -j"$(nproc)"
echo "test: sanitizer build in $((SECONDS - start)) s" >&2
# Reports go to files, so that one from a seam that an e2e test started (and stopped) is not lost
# in its stderr: any file there fails the run, after ctest has said which tests failed.
reports="$(realpath -m "$asan")/sanitizer-reports"
rm -rf "$reports" && mkdir -p "$reports"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:log_path=$reports/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
# Every unit test; of the e2e tests (real kernel, each run of seam takes seconds), the ones that
# take one rule from text to alert, reload and the bundle path: the rest repeat the same code
# with other rules.
e2e=${SEAM_SANITIZE_E2E:-'^(Headline|Adhoc|Reload|Bundle)\.'}
status=0
start=$SECONDS
(cd "$asan" && ctest --output-on-failure --timeout 600 -L unit) || status=1
(cd "$asan" && ctest --output-on-failure --timeout 600 -L e2e -R "$e2e") || status=1
echo "test: sanitizer tests in $((SECONDS - start)) s" >&2
if compgen -G "$reports/*" >/dev/null; then
  cat "$reports"/* >&2
  echo "test: the sanitizers reported the problems above ($reports)" >&2
  status=1
fi
exit $status
