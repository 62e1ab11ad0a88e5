#!/usr/bin/env bash
# `etna controllers` against `etna server` over HTTPS: a pytorch Job applied with kubectl gets
# its PodGroup and pods (Volcano's names, MASTER_ADDR/RANK env); a CloseQueue Command closes a
# queue; SIGTERM stops the controllers.
# Usage: controllers_test.sh ETNA_BINARY
set -uo pipefail
ETNA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

start_server "$ETNA"
K=("${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG_FILE" --cache-dir "$WORK/cache")

expect_fail "controllers without a kubeconfig" "--kubeconfig is required" "$ETNA" controllers
expect_fail "unknown controller" "unknown controller" \
  "$ETNA" controllers --kubeconfig "$KUBECONFIG_FILE" --controllers jobs

"$ETNA" controllers --kubeconfig "$KUBECONFIG_FILE" --lease-grace-seconds 1 \
  --listen 127.0.0.1:0 >"$WORK/controllers.log" 2>&1 &
CONTROLLERS_PID=$!
AGENT_PID=$CONTROLLERS_PID  # lib.sh's cleanup kills it
wait_for_file_line "$WORK/controllers.log" "etna controllers: running"

cat >"$WORK/job.yaml" <<'YAML'
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: pt
spec:
  plugins:
    pytorch: ["--master=chief", "--worker=worker"]
  tasks:
    - name: chief
      replicas: 1
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
    - name: worker
      replicas: 2
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
YAML
expect_output "apply job" "job.batch.volcano.sh/pt created" "${K[@]}" apply -f "$WORK/job.yaml"
for _ in $(seq 1 200); do
  n=$("${K[@]}" get pods -l volcano.sh/job-name=pt -o name 2>/dev/null | wc -l)
  [ "$n" = 3 ] && break
  sleep 0.05
done
[ "$n" = 3 ] || fail "the job's 3 pods were not created (got $n)"
expect_output "worker rank" '"value":"2"' "${K[@]}" get pod pt-worker-1 \
  -o jsonpath='{.spec.containers[0].env[?(@.name=="RANK")]}'
expect_output "master address" "pt-chief-0.pt" "${K[@]}" get pod pt-worker-1 \
  -o jsonpath='{.spec.containers[0].env[?(@.name=="MASTER_ADDR")].value}'
expect_output "podgroup" "pt-" "${K[@]}" get podgroups -o name
expect_output "job status" "Pending" "${K[@]}" get vcjob pt -o jsonpath='{.status.state.phase}'

cat >"$WORK/queue.yaml" <<'YAML'
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: q1
spec:
  weight: 1
---
apiVersion: bus.volcano.sh/v1alpha1
kind: Command
metadata:
  name: close-q1
action: CloseQueue
target:
  apiVersion: scheduling.volcano.sh/v1beta1
  kind: Queue
  name: q1
YAML
"${K[@]}" apply -f "$WORK/queue.yaml" >/dev/null || fail "apply queue and command"
for _ in $(seq 1 200); do
  state=$("${K[@]}" get queue q1 -o jsonpath='{.status.state}' 2>/dev/null)
  [ "$state" = Closed ] && break
  sleep 0.05
done
[ "$state" = Closed ] || fail "queue q1 is \"$state\", not Closed"

# /metrics, /healthz and /readyz on the --listen address it printed.
METRICS_URL=$(sed -n 's|^etna controllers: metrics on \(http://[^ ]*\)/metrics$|\1|p' \
  "$WORK/controllers.log")
[ -n "$METRICS_URL" ] || fail "no metrics line in the controllers' log"
[ "$(curl -sS "$METRICS_URL/readyz")" = ok ] || fail "controllers /readyz is not ok"
[ "$(curl -sS "$METRICS_URL/healthz")" = ok ] || fail "controllers /healthz is not ok"
curl -sS "$METRICS_URL/metrics" >"$WORK/controllers.metrics" || fail "GET /metrics"
grep -q '^etna_job_phase_transitions_total{phase="Pending"} ' "$WORK/controllers.metrics" ||
  fail "no job phase counter in the controllers' /metrics"
grep -q '^volcano_queue_pod_group_pending_count{queue_name="q1"} ' "$WORK/controllers.metrics" ||
  fail "no PodGroup count of queue q1 in the controllers' /metrics"
# Parsable (promtool exit 3 only lists lint notes on Volcano's and kube-state-metrics' names).
promtool check metrics <"$WORK/controllers.metrics" >"$WORK/promtool.out" 2>&1
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "promtool check metrics: $(cat "$WORK/promtool.out")"

kill -TERM "$CONTROLLERS_PID"
wait "$CONTROLLERS_PID" || fail "etna controllers exited non-zero on SIGTERM"
AGENT_PID=""
grep -q "SIGTERM, shutting down" "$WORK/controllers.log" || fail "no shutdown line"
echo "PASS"
