#!/usr/bin/env bash
# Least privilege (issue 13): seam run as an unprivileged user (nobody) that holds only the
# capabilities docs/operations.md lists, as ambient capabilities (what the systemd unit's
# AmbientCapabilities= gives a User=), from a bundle: it must get ready, attach, and alert on a
# root workload calling the fixture libcudart; and after attaching it must hold no capability
# beyond that list. Usage: nonroot_test.sh BUILD_DIR PYTHON (root)
set -euo pipefail
build=$(realpath "$1") python=$2
caps=bpf,perfmon,sys_ptrace,dac_read_search,sys_admin,checkpoint_restore
work=$(mktemp -d /tmp/seam-nonroot-XXXXXX)
chmod 0755 "$work"
seam_pid= workload=
cleanup() {
  [[ -n $workload ]] && kill "$workload" 2>/dev/null || true
  [[ -n $seam_pid ]] && kill "$seam_pid" 2>/dev/null && wait "$seam_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "nonroot_test: $*" >&2
  echo "--- seam's output:" >&2; cat "$work/out/alerts.jsonl" "$work/seam.log" >&2 2>/dev/null || true
  exit 1
}
source "$(dirname "${BASH_SOURCE[0]}")/wait_for.sh"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is missing"

mkdir -p "$work/rules" "$work/out" "$work/tmp"
chown nobody "$work/out" "$work/tmp"
printf 'use cuda\n\nrule nonroot_malloc\n    on cudaMalloc\n    alert info "malloc {size}"\n' >"$work/rules/m.seam"
"$build/seam" build "$work/rules" -o "$work/rules.seamb" 2>"$work/build.log" || fail "seam build: $(cat "$work/build.log")"
chmod 0644 "$work/rules.seamb"
# Its own copy: the build tree may sit below a folder that nobody cannot enter (/root).
install -m 0755 "$build/seam" "$work/seam"

TMPDIR="$work/tmp" setpriv --reuid=nobody --regid=nogroup --clear-groups \
  --inh-caps="-all,+${caps//,/,+}" --ambient-caps="-all,+${caps//,/,+}" --bounding-set="-all,+${caps//,/,+}" \
  "$work/seam" run "$work/rules.seamb" --listen off --output "json:$work/out/alerts.jsonl" \
  >"$work/seam.log" 2>&1 &
seam_pid=$!
wait_for 60 grep -qs '"notice":"ready"' "$work/out/alerts.jsonl" || fail "seam as nobody did not get ready"
[[ $(stat -c %U /proc/$seam_pid) == nobody ]] || fail "seam does not run as nobody"

"$python" -c '
import ctypes, sys, time
lib = ctypes.CDLL(sys.argv[1]); p = ctypes.c_void_p()
for i in range(1, 100000):
    lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(i)); time.sleep(0.005)
' "$build/fixtures/libcudart.so.12" &
workload=$!
wait_for 30 grep -q "\"rule\":\"nonroot_malloc\".*\"pid\":$workload[,}]" "$work/out/alerts.jsonl" ||
  fail "no alert for the root workload (pid $workload)"

# Nothing beyond the list, in any thread (CapEff; bits from linux/capability.h).
allowed=$(( (1<<21) | (1<<39) | (1<<38) | (1<<19) | (1<<2) | (1<<40) ))
for status in /proc/$seam_pid/task/*/status; do
  eff=$((16#$(awk '/^CapEff/ {print $2}' "$status")))
  (( (eff & ~allowed) == 0 )) || fail "$(basename "$(dirname "$status")") holds CapEff $(printf %x $eff), beyond the list"
done
echo "nonroot_test: ok: seam as nobody with ambient capabilities ($caps) alerted on pid $workload"
