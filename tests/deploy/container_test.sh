#!/usr/bin/env bash
# The bundle-only image, run by a real container runtime: its root filesystem is made offline the
# way the Containerfile makes it (scripts/image-rootfs.sh: seam, its ldd libraries, a bundle; no
# base image, no clang), run with runc as an OCI bundle (hostPID, the capability list of
# docs/operations.md, /sys/kernel/debug, /sys/kernel/tracing and /sys/fs/cgroup from the host),
# against a workload on the host calling the fixture libcudart: its alerts must appear. Prints
# the image's size; fails over 100 MB. Usage: container_test.sh BUILD_DIR SOURCE_DIR PYTHON (root)
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2") python=$3
work=$(mktemp -d /tmp/seam-container-XXXXXX)
id=$(head -c 32 /dev/urandom | sha256sum | cut -c1-64)
workload=
cleanup() {
  [[ -n $workload ]] && kill "$workload" 2>/dev/null || true
  runc kill "$id" TERM 2>/dev/null || true
  for _ in $(seq 50); do runc state "$id" 2>/dev/null | grep -q '"status": "running"' || break; sleep 0.1; done
  runc delete --force "$id" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "container_test: $*" >&2
  echo "--- seam's output:" >&2; cat "$work/out/alerts.jsonl" "$work/seam.log" >&2 2>/dev/null || true
  exit 1
}
source "$(dirname "${BASH_SOURCE[0]}")/wait_for.sh"

mkdir -p "$work/rules" "$work/oci/rootfs" "$work/out"
printf 'use cuda\n\nrule container_malloc\n    on cudaMalloc\n    alert info "malloc {size}"\n' >"$work/rules/m.seam"
"$build/seam" build "$work/rules" -o "$work/rules.seamb" 2>"$work/build.log" || fail "seam build: $(cat "$work/build.log")"
cp "$build/seam" "$work/seam" && strip "$work/seam"
bash "$src/scripts/image-rootfs.sh" "$work/seam" "$work/rules.seamb" "$work/oci/rootfs"
size=$(du -sb "$work/oci/rootfs" | cut -f1)
echo "container_test: image root filesystem $((size / 1024 / 1024)) MB ($size bytes)"
((size <= 100 * 1024 * 1024)) || fail "the image is over 100 MB"
[[ ! -e $work/oci/rootfs/bin/sh && ! -e $work/oci/rootfs/usr/bin/clang ]] || fail "the image has a shell or clang"

python3 "$src/tests/deploy/oci_config.py" "$work/oci" --host-pid \
  --caps BPF PERFMON SYS_PTRACE DAC_READ_SEARCH SYS_ADMIN \
  --bind /sys/kernel/debug:/sys/kernel/debug /sys/kernel/tracing:/sys/kernel/tracing \
         /sys/fs/cgroup:/sys/fs/cgroup:ro "$work/out:/out" \
  -- /usr/bin/seam run /usr/share/seam/rules.seamb --listen off --output json:/out/alerts.jsonl
runc run --detach --bundle "$work/oci" "$id" </dev/null >"$work/seam.log" 2>&1 || fail "runc run failed"
wait_for 60 grep -q '"notice":"ready"' "$work/out/alerts.jsonl" || fail "seam in the container did not get ready"

"$python" -c '
import ctypes, sys, time
lib = ctypes.CDLL(sys.argv[1]); p = ctypes.c_void_p()
for i in range(1, 100000):
    lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(i)); time.sleep(0.005)
' "$build/fixtures/libcudart.so.12" &
workload=$!
wait_for 30 grep -q "\"rule\":\"container_malloc\".*\"pid\":$workload[,}]" "$work/out/alerts.jsonl" ||
  fail "no alert for the host workload (pid $workload)"
echo "container_test: ok: seam in a runc container alerted on host pid $workload"
