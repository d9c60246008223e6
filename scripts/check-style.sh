#!/usr/bin/env bash
# The style gates of the test command: clang-format (check mode) over every C++ source and header
# seam owns, then clang-tidy with the repository's .clang-tidy over every C++ source.
#   scripts/check-style.sh [BUILD_DIR]     (BUILD_DIR holds compile_commands.json; default build)
#   SEAM_TIDY=0 skips clang-tidy (for a quick local run; CI always runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mapfile -t sources < <(git ls-files -- '*.cpp' '*.hpp' | grep -v '^bench/')

echo "check-style: clang-format on ${#sources[@]} files" >&2
if ! clang-format --dry-run --Werror "${sources[@]}"; then
  echo "check-style: run 'clang-format -i' on the files above" >&2
  exit 1
fi

if [ "${SEAM_TIDY:-1}" = 0 ]; then exit 0; fi
mapfile -t units < <(printf '%s\n' "${sources[@]}" | grep '\.cpp$' | grep -v '^tests/fuzz/')
echo "check-style: clang-tidy on ${#units[@]} files" >&2
# One clang-tidy per core; each prints only its findings.
printf '%s\n' "${units[@]}" |
  xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option 2>/dev/null >"$build/clang-tidy.log" || {
  grep -E 'error:|warning:' "$build/clang-tidy.log" | sort -u | head -100 >&2
  echo "check-style: clang-tidy found the problems above (full log: $build/clang-tidy.log)" >&2
  exit 1
}
