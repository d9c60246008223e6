# Sourced by the deploy tests: wait_for SECONDS COMMAND... runs COMMAND every 50 ms until it
# succeeds (0) or SECONDS have passed (1).
wait_for() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do ((SECONDS < deadline)) || return 1; sleep 0.05; done
}
