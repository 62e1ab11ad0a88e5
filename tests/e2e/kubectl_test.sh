#!/usr/bin/env bash
# kubectl against `etna server` with default flags: apply the seed's files, get (columns, short
# names, -w), describe, patch, logs, delete, and the errors users see.
# Usage: kubectl_test.sh ETNA_BINARY SEED_DIR
set -uo pipefail
ETNA=$1
SEED=$2
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

start_server "$ETNA"
K=("${KUBECTL:-kubectl}" --kubeconfig "$KUBECONFIG_FILE" --cache-dir "$WORK/cache")
echo "kubectl: $("${K[@]}" version --client 2>/dev/null | head -1)"

expect_output "server version" "v1.32" "${K[@]}" version

# The seed's queues and QueueBinding.
expect_output "apply queues" "queue.scheduling.volcano.sh/production-training created" \
  "${K[@]}" apply -f "$SEED/volcano-queues.yaml"
expect_output "apply queues again" "queue.scheduling.volcano.sh/production-training unchanged" \
  "${K[@]}" apply -f "$SEED/volcano-queues.yaml"
expect_output "queue columns" "PARENT" "${K[@]}" get queue
expect_output "queue by short name" "inference-service" "${K[@]}" get q
expect_output "queue yaml" "weight:" "${K[@]}" get queue production-training -o yaml

# Namespaces and config of the cluster, then the training job, deployment and HPA.
expect_output "apply cluster config" "namespace/volcano-training created" \
  "${K[@]}" apply -f "$SEED/volcano-cluster-config.yaml"
expect_output "cluster config: the scheduler ConfigMap" "volcano-scheduler-config" \
  "${K[@]}" get configmap -n volcano-system
expect_output "the example node" "gpu-node-1" "${K[@]}" get nodes
for ns in inference monitoring; do
  printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n' "$ns" |
    "${K[@]}" apply -f - >/dev/null || fail "create namespace $ns"
done
# The seed's Job carries a policy Volcano does not allow (QueueUnderused -> KillJob): refused by
# name, while the Deployment and HPA of the same file are applied.
expect_fail "seed job's unsupported policy is named" "spec.policies[1].event" \
  "${K[@]}" apply -f "$SEED/training-job.yaml"
grep -v -e "QueueUnderused" -e "KillJob" "$SEED/training-job.yaml" >"$WORK/training-job.yaml"
expect_output "apply training job without it" "job.batch.volcano.sh/bert-finetune-training created" \
  "${K[@]}" apply -f "$WORK/training-job.yaml"
expect_output "deployment applied" "bert-inference-service" "${K[@]}" get deploy -n inference
expect_output "hpa applied" "bert-inference-service" "${K[@]}" get hpa -n inference
expect_output "vcjob columns" "MINAVAILABLE" "${K[@]}" get vcjob
expect_output "short names together" "bert-finetune-training" "${K[@]}" get vcjob,queue,podgroup
expect_output "queue listed with the others" "queue.scheduling.volcano.sh/production-training" \
  "${K[@]}" get vcjob,queue,podgroup
# The seed's PodGroup (minMember 8, minAvailable 4: the gang forms at 4) applies as written.
expect_output "apply preemption file" "podgroup.scheduling.volcano.sh/urgent-training-job created" \
  "${K[@]}" apply -f "$SEED/preemption.yaml"
min_available=$("${K[@]}" get pg urgent-training-job -o 'jsonpath={.spec.minAvailable}' 2>&1)
[ "$min_available" = 4 ] || fail "podgroup minAvailable: got \"$min_available\", want 4"
expect_output "podgroup columns" "MINMEMBER" "${K[@]}" get pg
# mig.yaml's Pod has no name: kubectl itself refuses it; the ConfigMap is applied.
expect_fail "mig file: the unnamed pod" "resource name may not be empty" \
  "${K[@]}" apply -f "$SEED/mig.yaml"
expect_output "mig ConfigMap" "nvidia-mig-config" "${K[@]}" get configmap -n volcano-system
expect_output "describe job" "Min Available" "${K[@]}" describe vcjob bert-finetune-training
expect_output "describe queue" "Weight" "${K[@]}" describe queue production-training

# The seed's DCGM exporter DaemonSet and its ConfigMaps apply; the MPS DaemonSet, printed
# without apiVersion, is refused by kubectl with a message naming it.
expect_output "DaemonSet applied" "daemonset.apps/gpu-monitoring created" \
  "${K[@]}" apply -f "$SEED/gpu-monitoring.yaml"
expect_output "DaemonSet columns" "NODE SELECTOR" "${K[@]}" get ds -n volcano-system
expect_fail "MPS DaemonSet without apiVersion" "apiVersion not set" \
  "${K[@]}" apply -f "$SEED/mps.yaml"
# Files with objects etna does not serve: a clear error, the supported objects still applied.
expect_output "monitoring ConfigMaps applied" "prometheus-gpu-rules" \
  "${K[@]}" get configmap -n monitoring
expect_fail "KEDA ScaledObject without apiVersion" "apiVersion not set" \
  "${K[@]}" apply -f "$SEED/keda-scaledobject.yaml"
expect_fail "illustrative snippets without apiVersion" "apiVersion" \
  "${K[@]}" apply -f "$SEED/core-concepts.yaml"

# Generator commands (these send Kubernetes protobuf bodies).
expect_output "create namespace" "namespace/gen-ns created" "${K[@]}" create namespace gen-ns
expect_output "create configmap" "configmap/gen-cm created" \
  "${K[@]}" create configmap gen-cm --from-literal=a=b -n gen-ns
expect_output "configmap data" '"a":"b"' "${K[@]}" get configmap gen-cm -n gen-ns -o 'jsonpath={.data}'
expect_output "create secret" "secret/gen-secret created" \
  "${K[@]}" create secret generic gen-secret --from-literal=pw=hunter2 -n gen-ns
expect_output "create priorityclass" "priorityclass.scheduling.k8s.io/urgent created" \
  "${K[@]}" create priorityclass urgent --value=1000
expect_output "the seed's priority classes" "high normal low" \
  "${K[@]}" get priorityclass high normal low -o 'jsonpath={.items[*].metadata.name}'

# patch: merge, then a no-op.
expect_output "patch" "queue.scheduling.volcano.sh/dev-test patched" \
  "${K[@]}" patch queue dev-test --type merge -p '{"spec":{"weight":7}}'
expect_output "patch no-op" "patched (no change)" \
  "${K[@]}" patch queue dev-test --type merge -p '{"spec":{"weight":7}}'
expect_fail "strategic patch on a custom resource" "accepted media types" \
  "${K[@]}" patch queue dev-test -p '{"spec":{"weight":8}}'
expect_output "patched value" "7" "${K[@]}" get queue dev-test -o 'jsonpath={.spec.weight}'

# get -w sees a change.
"${K[@]}" get queue -w >"$WORK/watch.out" 2>&1 &
WATCH_PID=$!
wait_for_file_line "$WORK/watch.out" "production-training"
"${K[@]}" create -f - >/dev/null <<'YAML' || fail "create watched queue"
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: watched-queue
spec:
  weight: 1
YAML
wait_for_file_line "$WORK/watch.out" "watched-queue"
kill "$WATCH_PID" 2>/dev/null

# logs: the bytes come from the agent of the pod's node.
AGENT_PORT_FILE="$WORK/agent.port"
/usr/bin/python3 "$HERE/fake_agent.py" >"$AGENT_PORT_FILE" &
AGENT_PID=$!
wait_for_file_line "$AGENT_PORT_FILE" ""
for _ in $(seq 1 100); do [ -s "$AGENT_PORT_FILE" ] && break; sleep 0.05; done
AGENT_PORT=$(head -1 "$AGENT_PORT_FILE")
cat >"$WORK/node.json" <<JSON
{"apiVersion":"v1","kind":"Node","metadata":{"name":"agent-node"},
 "status":{"addresses":[{"type":"InternalIP","address":"127.0.0.1"}],
           "daemonEndpoints":{"kubeletEndpoint":{"Port":$AGENT_PORT}}}}
JSON
"${K[@]}" create -f "$WORK/node.json" >/dev/null || fail "create node"
# Status is written through the status subresource, as an agent does.
"${K[@]}" replace --raw /api/v1/nodes/agent-node/status -f "$WORK/node.json" >/dev/null ||
  fail "node status"
"${K[@]}" run logpod --image=busybox --restart=Never >/dev/null 2>&1 ||
  "${K[@]}" create -f - >/dev/null <<'YAML' || fail "create logpod"
apiVersion: v1
kind: Pod
metadata:
  name: logpod
spec:
  containers:
  - name: logpod
    image: busybox
YAML
echo '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"logpod"},"target":{"apiVersion":"v1","kind":"Node","name":"agent-node"}}' >"$WORK/binding.json"
"${K[@]}" create --raw /api/v1/namespaces/default/pods/logpod/binding -f "$WORK/binding.json" \
  >/dev/null || fail "bind logpod"
expect_fail "second bind" "already assigned" \
  "${K[@]}" create --raw /api/v1/namespaces/default/pods/logpod/binding -f "$WORK/binding.json"
expect_output "logs --tail" "logpod/logpod line 10" "${K[@]}" logs logpod --tail=2
out=$("${K[@]}" logs logpod --tail=2)
[ "$(wc -l <<<"$out")" = 2 ] || fail "logs --tail=2 printed: $out"
expect_output "logs -f streams until the container's log ends" "logpod/logpod line 10" \
  timeout 20 "${K[@]}" logs -f logpod
expect_output "pod columns" "agent-node" "${K[@]}" get pod logpod -o wide

# delete.
expect_output "delete job" "job.batch.volcano.sh \"bert-finetune-training\" deleted" \
  "${K[@]}" delete vcjob bert-finetune-training
expect_fail "deleted job is gone" "NotFound" "${K[@]}" get vcjob bert-finetune-training
expect_output "delete -f" "deleted" "${K[@]}" delete -f "$SEED/preemption.yaml"
expect_fail "delete missing" "not found" "${K[@]}" delete queue no-such-queue

# Errors users see.
expect_fail "unknown resource type" "doesn't have a resource type" "${K[@]}" get widgets
expect_fail "invalid job" "spec.minAvailable" "${K[@]}" create -f - <<'YAML'
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: bad-job
spec:
  minAvailable: 5
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: c
          image: busybox
YAML
sed 's/token: .*/token: wrong/' "$KUBECONFIG_FILE" >"$WORK/bad-kubeconfig"
expect_fail "wrong token" "You must be logged in" \
  "${KUBECTL:-kubectl}" --kubeconfig "$WORK/bad-kubeconfig" --cache-dir "$WORK/cache2" get queues

echo "PASS kubectl_test"
