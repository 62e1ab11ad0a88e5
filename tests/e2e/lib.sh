# Shared helpers for the end-to-end tests: start `etna server` (or the whole `etna dev`) on a
# free loopback port in a temporary data dir, wait for its kubeconfig, and assert on command
# output.
# Usage: source lib.sh; start_server ETNA_BINARY [extra flags]; then $KUBECTL ...

WORK=$(mktemp -d)
SERVER_PID=""
AGENT_PID=""
cleanup() {
  # A test may define cleanup_hook (e.g. to end the pods `etna dev` leaves running).
  if declare -F cleanup_hook >/dev/null; then cleanup_hook; fi
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  [ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  [ -f "$WORK/server.log" ] && { echo "--- server log:" >&2; tail -20 "$WORK/server.log" >&2; }
  exit 1
}

# start_server ETNA [flags...]: sets PORT and KUBECONFIG_FILE.
start_server() {
  start_etna "$1" server "serving https\?://" "${@:2}"
}

# start_dev ETNA [flags...]: `etna dev` (server, scheduler, controllers, simulated nodes whose
# pods run as processes); sets PORT and KUBECONFIG_FILE. Stop it with stop_server.
start_dev() {
  start_etna "$1" dev "etna dev: ready" "${@:2}"
}

# start_etna ETNA SUBCOMMAND READY_PATTERN [flags...]: waits (60 s) for the pattern in its log.
start_etna() {
  local etna=$1 subcommand=$2 ready=$3
  shift 3
  "$etna" "$subcommand" --data-dir "$WORK/data" --listen 127.0.0.1:0 "$@" >"$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 1200); do
    if grep -q "$ready" "$WORK/server.log" 2>/dev/null; then break; fi
    kill -0 "$SERVER_PID" 2>/dev/null || fail "etna $subcommand exited"
    sleep 0.05
  done
  grep -q "$ready" "$WORK/server.log" || fail "etna $subcommand did not get ready"
  PORT=$(sed -n 's|.*serving https\?://[^:]*:\([0-9]*\).*|\1|p' "$WORK/server.log" | head -1)
  [ -n "$PORT" ] || fail "etna $subcommand did not start"
  KUBECONFIG_FILE="$WORK/data/kubeconfig"
}

stop_server() {
  kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
}

# expect_output "description" "needle" command...: runs command, asserts its output has needle.
expect_output() {
  local what=$1 needle=$2
  shift 2
  local out
  out=$("$@" 2>&1) || true
  if ! grep -qF -- "$needle" <<<"$out"; then
    echo "$out" >&2
    fail "$what: output lacks \"$needle\""
  fi
}

# expect_fail "description" "needle" command...: the command must exit non-zero with needle.
expect_fail() {
  local what=$1 needle=$2
  shift 2
  local out
  if out=$("$@" 2>&1); then
    echo "$out" >&2
    fail "$what: exited 0"
  fi
  if ! grep -qF -- "$needle" <<<"$out"; then
    echo "$out" >&2
    fail "$what: output lacks \"$needle\""
  fi
}

# wait_for_file_line FILE NEEDLE: polls until FILE has NEEDLE (10 s).
wait_for_file_line() {
  for _ in $(seq 1 200); do
    grep -qF -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  cat "$1" >&2
  fail "\"$2\" never appeared in $1"
}
