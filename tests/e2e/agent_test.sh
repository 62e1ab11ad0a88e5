#!/usr/bin/env bash
# `etna agent` against `etna server`: registers a profile node, runs a bound pod as a process
# (kubectl logs goes through the agent's endpoint), answers /readyz, serves dcgm-exporter's
# GPU metrics naming the pod that holds a GPU (and promtool parses them), survives its own
# SIGKILL without launching a running container twice, and stops a pod on graceful delete.
# Usage: agent_test.sh ETNA_BINARY PROFILE
set -euo pipefail
ETNA=$1
PROFILE=$2
source "$(dirname "$0")/lib.sh"

# A container left by a failing run is ended with its process group (its shell wrote its pid).
kill_leftover() {
  local pid
  pid=$(cat "$WORK/long.pid" 2>/dev/null) || return 0
  kill -KILL -- "-$(ps -o pgid= -p "$pid" | tr -d ' ')" 2>/dev/null || true
}
trap 'kill_leftover; cleanup' EXIT

start_server "$ETNA"
K=("${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG_FILE" --cache-dir "$WORK/cache")

start_agent() {
  "$ETNA" agent --kubeconfig "$KUBECONFIG_FILE" --data-dir "$WORK/agent" --profile "$PROFILE" \
    --profile-node t4-0 --lease-seconds 4 >"$WORK/agent.log" 2>&1 &
  AGENT_PID=$!
  wait_for_file_line "$WORK/agent.log" "etna agent: node t4-0 ready"
}
start_agent

expect_output "node registered" "t4-0" "${K[@]}" get nodes
expect_output "gpu label" "Tesla-T4" "${K[@]}" get node t4-0 -o jsonpath='{.metadata.labels.nvidia\.com/gpu\.model}'
expect_output "allocatable gpus" "2" "${K[@]}" get node t4-0 -o jsonpath='{.status.allocatable.nvidia\.com/gpu}'
expect_output "lease" "t4-0" "${K[@]}" -n kube-node-lease get lease t4-0 -o jsonpath='{.spec.holderIdentity}'

pod() {  # pod NAME SCRIPT
  cat <<YAML | "${K[@]}" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: default, annotations: {etna.io/gpu-ids: "1", etna.io/gpu-uuids: GPU-x}}
spec:
  nodeName: t4-0
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "$2"]
    env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]
YAML
}

wait_phase() {  # wait_phase POD PHASE
  for _ in $(seq 1 400); do
    [ "$("${K[@]}" get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null)" = "$2" ] && return 0
    sleep 0.05
  done
  "${K[@]}" get pod "$1" -o yaml >&2 || true
  fail "pod $1 never reached $2"
}

pod hello 'echo gpus=$CUDA_VISIBLE_DEVICES/$NVIDIA_VISIBLE_DEVICES; exit 0'
wait_phase hello Succeeded
expect_output "kubectl logs through the agent" "gpus=1/GPU-x" "${K[@]}" logs hello

# The agent is SIGKILLed while a container runs; the next agent adopts it.
# ("$$$$": Kubernetes' $(VAR) expansion turns "$$" into "$".)
pod long "echo \$\$\$\$ > $WORK/long.pid; echo started >> $WORK/starts; trap 'echo term >> $WORK/starts; exit 0' TERM; while true; do sleep 0.05; done"
wait_phase long Running

# The agent's own endpoints: /readyz, then /metrics while pod long holds GPU 1.
AGENT_URL="http://127.0.0.1:$(sed -n 's/.*logs on port \([0-9]*\).*/\1/p' "$WORK/agent.log" | tail -1)"
for _ in $(seq 1 200); do
  [ "$(curl -s "$AGENT_URL/readyz")" = "ok" ] && break
  sleep 0.05
done
expect_output "agent /readyz" "ok" curl -sf "$AGENT_URL/readyz"
for _ in $(seq 1 200); do
  curl -sf "$AGENT_URL/metrics" >"$WORK/metrics.txt" || true
  grep -q 'pod="long"' "$WORK/metrics.txt" && break
  sleep 0.05
done
expect_output "gpu 1 names its pod" 'DCGM_FI_DEV_GPU_UTIL{gpu="1",' grep -F ',container="main",namespace="default",pod="long"}' "$WORK/metrics.txt"
expect_output "healthy gpus" 'DCGM_FI_DEV_COUNT{Hostname="t4-0"} 2' cat "$WORK/metrics.txt"
if grep '{gpu="0"' "$WORK/metrics.txt" | grep -q 'pod='; then fail "gpu 0 is idle but names a pod"; fi
# promtool lints dcgm-exporter's naming (upper-case names, camelCase labels such as modelName,
# counters without "_total", non-base units such as MiB and mJ): the same lines dcgm-exporter's
# own output draws, and dashboards depend on those names, so lint lines are expected. Only a
# parse error fails: exit status 1 (lint findings alone exit 3) or an "error while linting" line.
LINT=$("${PROMTOOL:-promtool}" check metrics <"$WORK/metrics.txt" 2>&1) && RC=0 || RC=$?
if { [ "$RC" -ne 0 ] && [ "$RC" -ne 3 ]; } || grep -qE "error while|parsing error" <<<"$LINT"; then
  echo "$LINT" >&2
  fail "promtool cannot parse the agent's /metrics (exit $RC)"
fi
UNEXPECTED=$(grep -vE "no help text|should have \"_total\" suffix|should be written in 'snake_case'|base unit|abbreviated unit" <<<"$LINT" | grep -v '^$' || true)
[ -z "$UNEXPECTED" ] || { echo "$UNEXPECTED" >&2; fail "promtool: output other than lint"; }
kill -9 "$AGENT_PID"
wait "$AGENT_PID" 2>/dev/null || true
start_agent
"${K[@]}" delete pod long --wait=true --timeout=20s >/dev/null || fail "pod long was not deleted"
[ "$(cat "$WORK/starts")" = "$(printf 'started\nterm')" ] || { cat "$WORK/starts" >&2; fail "want one start then SIGTERM"; }
echo "PASS"
