#!/usr/bin/env bash
# Installs every package seam needs to build, test and run, from Debian's registry.
# Idempotent: a second run installs nothing new.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  clang llvm libclang-dev libclang-rt-dev          # clang -target bpf at run time; libclang for `seam stdlib gen`; fuzzer runtime
  libbpf-dev bpftool linux-libc-dev                # loading, attaching; bpf_helpers.h embedded into seam
  libelf-dev libdw-dev zlib1g-dev libzstd-dev      # ELF symbols, build ids
  libxxhash-dev                                    # BPF object cache keys
  tao-pegtl-dev nlohmann-json3-dev libcli11-dev    # parser, layouts and JSON output, command line
  libgtest-dev googletest                          # tests
  libcurl4-openssl-dev                             # webhooks
  prometheus-alertmanager                          # tests: a real Alertmanager fed by the webhook output
  prometheus                                       # tests: a real Prometheus scraping seam; promtool check metrics
  python3 curl                                     # curl: tests read /metrics
  systemtap-sdt-dev                                # tests: <sys/sdt.h> for the USDT fixture
  runc                                             # tests: the container image and a containerised workload
  systemd python3-yaml                             # tests: systemd-analyze verify on the unit; the manifests' fields
  clang-format clang-tidy                          # the style gates of the test command (scripts/check-style.sh)
)
# tests: `kubectl kustomize` renders deploy/kubernetes/ offline; Debian packages kubectl as
# kubernetes-client (take it only where no kubectl is installed already).
command -v kubectl >/dev/null 2>&1 || packages+=(kubernetes-client)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
