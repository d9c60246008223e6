#!/usr/bin/env bash
# The real-GPU check of docs/gpu-check.md, in two steps:
#   scripts/gpu-check.sh prepare [KIT]   here: needs a built seam (build/seam), clang and nvcc
#   scripts/gpu-check.sh run [KIT]       on the GPU machine, as root: needs nothing but the kit
# prepare fills KIT (default gpu-kit/, git-ignored; carry it to the machine) with seam and the
# shared libraries it links (with their loader, so the machine's own glibc does not matter), a
# bundle of the default pack, and the CUDA program built with nvcc plus the libcudart it links.
# run starts seam on the bundle, runs the program with a mutex held and released as the "GIL",
# then through Python's ctypes with the real GIL held (PyDLL) and released (CDLL) where the machine
# has a Python with a shared libpython (the GIL rules probe libpython; otherwise that part is
# skipped and summary.txt says so), and writes under $OUT: alerts.jsonl (alerts and notices),
# seam-stderr.txt, metrics.txt (seam's /metrics at the end), program.txt, python.txt, summary.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
kit=$(realpath -m "${2:-$here/gpu-kit}")
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
port=${SEAM_GPU_CHECK_PORT:-9409}  # 0: any free port (seam's listening notice names it)

prepare() {
  local seam=${SEAM:-$here/build/seam}
  [[ -x $seam ]] || { echo "gpu-check: build seam first (cmake --build build --target seam)" >&2; exit 2; }
  [[ -x $nvcc ]] || { echo "gpu-check: no nvcc at $nvcc (set NVCC)" >&2; exit 2; }
  rm -rf "$kit" && mkdir -p "$kit/lib"
  cp "$seam" "$kit/seam" && strip "$kit/seam"
  ldd "$seam" | awk '/=>/ && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u | while read -r lib; do
    cp -L "$lib" "$kit/lib/"
  done
  "$seam" build "$here/rules" -o "$kit/default-pack.seamb"
  local cuda
  cuda=$(dirname "$(dirname "$nvcc")")
  "$nvcc" -O2 -shared -Xcompiler -fPIC -cudart shared -o "$kit/libgpuspin.so" "$here/scripts/gpu-check/spin.cu"
  "$nvcc" -O2 -DSPIN_MAIN -cudart shared -Xlinker -rpath,'$ORIGIN/lib' -o "$kit/gpuspin" \
    "$here/scripts/gpu-check/spin.cu"
  cp -L "$cuda"/lib64/libcudart.so.[0-9]* "$kit/lib/" 2>/dev/null || cp -L "$cuda"/lib64/libcudart.so* "$kit/lib/"
  cp "$here/scripts/gpu-check/gil.py" "$kit/"
  du -sh "$kit" | awk '{print "gpu-check: kit " $1 " in " $2}'
}

http_get() {  # http_get PATH: seam's metrics server, without curl
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$1" >&3
  sed '1,/^\r$/d' <&3
  exec 3<&-
}

run() {
  : "${OUT:?set OUT to the folder for the results}"
  [[ -x $kit/seam && -f $kit/default-pack.seamb ]] || { echo "gpu-check: no kit at $kit (gpu-check.sh prepare)" >&2; exit 2; }
  mkdir -p "$OUT"
  local summary=$OUT/summary.txt
  : >"$summary"
  { uname -a; command -v nvidia-smi >/dev/null && nvidia-smi -L || echo "no nvidia-smi"; } >>"$summary" 2>&1
  local loader
  loader=$(ls "$kit"/lib/ld-linux*.so* | head -1)
  # Started directly (not in a subshell), so that $! is seam itself and SIGTERM reaches it.
  "$loader" --library-path "$kit/lib" "$kit/seam" run "$kit/default-pack.seamb" --listen "127.0.0.1:$port" \
    --output "json:$OUT/alerts.jsonl" 2>"$OUT/seam-stderr.txt" &
  seam_pid=$!  # global: the EXIT trap runs after run() has returned
  trap 'kill -TERM "$seam_pid" 2>/dev/null; wait "$seam_pid" 2>/dev/null' EXIT
  # Serving /metrics comes after "ready"; its notice names the port (the free one for port 0).
  for _ in $(seq 600); do
    grep -q '"notice":"listening"' "$OUT/alerts.jsonl" 2>/dev/null && break
    kill -0 "$seam_pid" 2>/dev/null || {
      echo "seam exited before it served metrics" >>"$summary"
      cat "$OUT/seam-stderr.txt" >&2
      exit 1
    }
    sleep 0.1
  done
  grep -o '"notice":"ready"[^}]*' "$OUT/alerts.jsonl" >>"$summary" || echo "seam: no ready notice" >>"$summary"
  port=$(sed -n 's|.*"notice":"listening".*metrics on http://[^"]*:\([0-9]*\)/metrics.*|\1|p' "$OUT/alerts.jsonl" | head -1)
  [[ -n $port ]] || { echo "seam: no listening notice" >>"$summary"; exit 1; }

  local program_rc=0 python_rc=skipped
  LD_LIBRARY_PATH="$kit/lib" "$kit/gpuspin" 5 20 1000 >"$OUT/program.txt" 2>&1 &
  local program_pid=$!
  wait "$program_pid" || program_rc=$?
  echo "gpuspin (pthread mutex as the GIL) pid $program_pid exit $program_rc: $(tail -1 "$OUT/program.txt")" >>"$summary"
  local python=${PYTHON:-python3}
  if command -v "$python" >/dev/null &&
    [[ $("$python" -c 'import sysconfig; print(sysconfig.get_config_var("Py_ENABLE_SHARED"))' 2>/dev/null) == 1 ]]; then
    python_rc=0
    LD_LIBRARY_PATH="$kit/lib" "$python" "$kit/gil.py" "$kit/libgpuspin.so" 5 20 1000 >"$OUT/python.txt" 2>&1 &
    local python_pid=$!
    wait "$python_pid" || python_rc=$?
    echo "gil.py ($("$python" -V 2>&1)) pid $python_pid exit $python_rc: $(tail -1 "$OUT/python.txt")" >>"$summary"
  else
    echo "GIL part skipped: no Python with a shared libpython here (set PYTHON)" | tee "$OUT/python.txt" >>"$summary"
  fi
  sleep 1.5  # one metrics tick: the windowed rules and the counters see the last calls
  http_get /metrics >"$OUT/metrics.txt" 2>/dev/null || echo "metrics: unreachable" >>"$summary"
  kill -TERM "$seam_pid" 2>/dev/null || echo "seam had exited before the end" >>"$summary"
  wait "$seam_pid" || echo "seam exit $?" >>"$summary"
  trap - EXIT
  echo "alerts by rule:" >>"$summary"
  grep -o '"rule":"[^"]*"' "$OUT/alerts.jsonl" | sort | uniq -c >>"$summary" || true
  grep -o '"notice":"[a-z-]*"' "$OUT/alerts.jsonl" | sort | uniq -c >>"$summary" || true
  cat "$summary"
}

case $mode in
  prepare) prepare ;;
  run) run ;;
  *) sed -n '2,13p' "$0" >&2; exit 2 ;;
esac
