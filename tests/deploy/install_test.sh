#!/usr/bin/env bash
# `cmake --install` to a temporary prefix: seam in bin/, the stdlib and the default pack in
# share/seam/, the systemd unit with the prefix's paths (checked by systemd-analyze verify); then
# seam lints the installed pack with the source and build trees hidden (a tmpfs over them in a
# private mount namespace), so it can only have found its stdlib relative to its own prefix.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR (root: the mount namespace)
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2")
prefix=$(mktemp -d /tmp/seam-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/seam bin/seam-stdlib-gen share/seam/stdlib/cuda.seam share/seam/rules/gil.seam lib/systemd/system/seam.service; do
  [[ -e $prefix/$f ]] || fail "$f was not installed"
done
[[ -e $src/docs/seam.1 ]] && { [[ -e $prefix/share/man/man1/seam.1 ]] || fail "the man page was not installed"; }
[[ -e $src/scripts/seam.bash-completion ]] &&
  { [[ -e $prefix/share/bash-completion/completions/seam ]] || fail "the bash completion was not installed"; }
grep -q "^ExecStart=$prefix/bin/seam run " "$prefix/lib/systemd/system/seam.service" ||
  fail "the unit does not start the installed seam: $(grep ExecStart "$prefix/lib/systemd/system/seam.service")"
systemd-analyze verify "$prefix/lib/systemd/system/seam.service" || fail "systemd-analyze verify failed"

"$prefix/bin/seam" --version | grep -q "^seam [0-9]" || fail "seam --version: $("$prefix/bin/seam" --version)"

# A rule file outside both trees that needs the stdlib's cuda module.
rules=$(mktemp -d /tmp/seam-install-rules-XXXXXX)
trap 'rm -rf "$prefix" "$rules"' EXIT
printf 'use cuda\n\nrule m\n    on cudaMalloc\n    alert info "malloc {size}"\n' >"$rules/m.seam"
out=$(unshare -m bash -c '
  set -e
  mount --make-rprivate /
  for d in "$@"; do [ ! -d "$d" ] || mount -t tmpfs none "$d"; done
  [ -z "$(ls -A "$1")" ] || { echo "the source tree is still visible"; exit 3; }
  cd /
  "$0/bin/seam" lint --strict "$0/share/seam/rules" && "$0/bin/seam" lint --strict "'"$rules"'"
' "$prefix" "$src" "$build" 2>&1) || fail "lint with the source tree hidden failed: $out"
echo "install_test: ok ($prefix)"
