#!/usr/bin/env bash
# Runs python_client_test.py against a fresh `etna server` and the fake agent.
# Usage: python_client_test.sh ETNA_BINARY
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
start_server "$1"
/usr/bin/python3 "$HERE/fake_agent.py" >"$WORK/agent.port" &
AGENT_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/agent.port" ] && break; sleep 0.05; done
/usr/bin/python3 "$HERE/python_client_test.py" "$KUBECONFIG_FILE" "$(head -1 "$WORK/agent.port")" ||
  fail "python client test"
