#!/usr/bin/env bash
# The style gates of the test command: clang-format (check mode) over every C++ source and header
# seam owns, then clang-tidy with the repository's .clang-tidy over seam's C++ sources.
#   scripts/check-style.sh [BUILD_DIR]     (BUILD_DIR holds compile_commands.json; default build)
#   SEAM_TIDY=0 skips clang-tidy, SEAM_TIDY=all runs it on tests/ too, SEAM_FORMAT=0 skips
#   clang-format (scripts/test.sh checks the formatting before the build and runs clang-tidy
#   after it, when the generated headers exist).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mapfile -t sources < <(git ls-files -- '*.cpp' '*.hpp' | grep -v '^bench/')

if [ "${SEAM_FORMAT:-1}" != 0 ]; then
  echo "check-style: clang-format on ${#sources[@]} files" >&2
  if ! clang-format --dry-run --Werror "${sources[@]}"; then
    echo "check-style: run 'clang-format -i' on the files above" >&2
    exit 1
  fi
fi

if [ "${SEAM_TIDY:-1}" = 0 ]; then exit 0; fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "check-style: no $build/compile_commands.json; configure with cmake first" >&2
  exit 1
fi
# seam's own sources (cli/, compiler/, runtime/, and their headers through .clang-tidy's
# HeaderFilterRegex). SEAM_TIDY=all adds tests/: at about 17 CPU-seconds a file, the 124 test files
# would add some 18 minutes on two cores (docs: README, "What the test command checks"). The
# fuzzers build only with clang and -DSEAM_FUZZ=ON, so they have no compile command here.
dirs='^(cli|compiler|runtime)/'
if [ "${SEAM_TIDY:-1}" = all ]; then dirs='^(cli|compiler|runtime|tests)/'; fi
mapfile -t units < <(printf '%s\n' "${sources[@]}" | grep '\.cpp$' | grep -E "$dirs" | grep -v '^tests/fuzz/')
echo "check-style: clang-tidy on ${#units[@]} files, $(nproc) at a time" >&2
start=$SECONDS
# One clang-tidy per core, one file each (clang-tidy 14 keeps the static analyzer's notion of
# va_start from the first file it checks: in a batch, every later file's va_arg is reported as
# reading an uninitialized va_list); each prints only its findings. The compile commands are
# GCC's: clang does not know some of its warning options.
if ! printf '%s\n' "${units[@]}" |
  xargs -P "$(nproc)" -n 1 clang-tidy -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option \
    2>/dev/null >"$build/clang-tidy.log"; then
  grep -E 'error:|warning:' "$build/clang-tidy.log" | sort -u | head -100 >&2
  echo "check-style: clang-tidy found the problems above (full log: $build/clang-tidy.log)" >&2
  exit 1
fi
echo "check-style: clang-tidy clean in $((SECONDS - start)) s" >&2
