#!/usr/bin/env bash
# `make demo`: starts `etna dev` (API server, scheduler, controllers and the simulated GPU
# nodes of examples/clusters/dev.yaml, pods as real processes), applies the seed's namespaces,
# its queues and the runnable versions of its training job and its inference Deployment, shows the
# job's progress until it completes and the Deployment rolled out.
# `etna dev` then keeps running for kubectl until Ctrl-C.
#
# Usage: scripts/demo.sh BUILD_DIR [DATA_DIR] [LISTEN]
set -euo pipefail
build=${1:-build}
data=${2:-$HOME/.etna}
listen=${3:-127.0.0.1:6443}
root=$(cd "$(dirname "$0")/.." && pwd)
etna="$build/src/cli/etna"
seed="$root/examples/seed"
kubectl=${KUBECTL:-kubectl}

mkdir -p "$data"
log="$data/dev.log"
"$etna" dev --data-dir "$data" --listen "$listen" >"$log" 2>&1 &
dev=$!
trap 'kill $dev 2>/dev/null; wait $dev 2>/dev/null' EXIT
for _ in $(seq 1 300); do
  grep -q "etna dev: ready" "$log" 2>/dev/null && break
  kill -0 $dev 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
grep -q "etna dev: ready" "$log" || { echo "etna dev did not start"; cat "$log"; exit 1; }
cat "$log"
k() { "$kubectl" --kubeconfig "$data/kubeconfig" "$@"; }

echo
echo "== kubectl get nodes"
k get nodes -o wide
# The seed's own namespaces (volcano-training, volcano-inference) come from its cluster config:
# only its Namespace objects are applied (the file also holds an example Node that is not in this
# cluster and an APIService etna does not serve, which `kubectl apply -l` would still refuse).
echo "== kubectl apply: the Namespaces of $seed/volcano-cluster-config.yaml"
python3 -c 'import sys, yaml
docs = yaml.safe_load_all(open(sys.argv[1]))
print(yaml.safe_dump_all([d for d in docs if d and d.get("kind") == "Namespace"]), end="")' \
  "$seed/volcano-cluster-config.yaml" | k apply -f -
echo "== kubectl apply -f $seed/volcano-queues.yaml"
k apply -f "$seed/volcano-queues.yaml"
job=bert-finetune-training
k delete vcjob "$job" --ignore-not-found --wait=true >/dev/null
echo "== kubectl apply -f examples/jobs/seed-training-runnable.yaml"
k apply -f "$root/examples/jobs/seed-training-runnable.yaml"
echo "== kubectl apply -f examples/jobs/seed-inference-runnable.yaml (the seed's inference Deployment)"
k apply -f "$root/examples/jobs/seed-inference-runnable.yaml"

last=""
for _ in $(seq 1 600); do
  phase=$(k get vcjob "$job" -o jsonpath='{.status.state.phase}' 2>/dev/null || true)
  now=$(k get pods -l volcano.sh/job-name=$job 2>/dev/null -o custom-columns='POD:.metadata.name,PHASE:.status.phase,NODE:.spec.nodeName,GPUS:.metadata.annotations.etna\.io/gpu-ids' || true)
  if [ "$now" != "$last" ]; then
    echo "== job $job: ${phase:-Pending}"
    echo "$now"
    last=$now
  fi
  [ "$phase" = Completed ] || [ "$phase" = Failed ] && break
  sleep 0.5
done
echo
echo "== kubectl logs $job-chief-0"
k logs "$job-chief-0" || true
echo
echo "== kubectl rollout status deployment/bert-inference-service -n inference"
k rollout status deployment/bert-inference-service -n inference --timeout=120s || true
k get deploy,rs,pods -n inference -o wide || true
echo
echo "== kubectl get hpa -n inference (the seed's HPA on the replicas' GPU utilization)"
k get hpa -n inference || true
echo
token=$(k config view --raw -o jsonpath='{.users[0].user.token}')
echo "== the dashboard (docs/dashboard.md): GPUs, queues and jobs, live"
echo "  https://$listen/ui/#token=$token"
echo "  (a login link holding the admin token of $data/kubeconfig; the server's CA is $data/pki/ca.crt)"
echo
echo "etna dev keeps running (data in $data). Try:"
echo "  kubectl --kubeconfig $data/kubeconfig get vcjob,podgroups,queues,pods"
echo "  echo 450 > /tmp/etna-bert-load/total   # raise the inference replicas' GPU load: the HPA scales out"
echo "  kubectl --kubeconfig $data/kubeconfig -n inference get hpa -w"
echo "Stop it with Ctrl-C."
wait $dev
