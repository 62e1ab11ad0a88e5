#!/usr/bin/env bash
# The `etna` user commands against `etna server`: vcctl's verbs, kubectl's verbs, the GPU views
# and the errors users see, compared with golden transcripts (tests/e2e/golden/cli_*.txt) after
# normalising ages, dates, uids, ports and random suffixes. UPDATE_GOLDEN=1 rewrites them.
# Usage: cli_test.sh ETNA_BINARY
set -uo pipefail
ETNA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN=$HERE/golden
FILES=$HERE/cli
source "$HERE/lib.sh"

start_server "$ETNA"
export KUBECONFIG="$KUBECONFIG_FILE"
export NO_COLOR=1
TOKEN=$(head -1 "$WORK/data/tokens.csv" | cut -d, -f1)
mkdir -p "$WORK/out"

# raw METHOD PATH [JSON]: a request as an agent or scheduler would make it (status, binding).
raw() {
  curl -sS --fail-with-body --cacert "$WORK/data/pki/ca.crt" -H "Authorization: Bearer $TOKEN" \
    -H "Content-Type: application/$([ "$1" = PATCH ] && echo merge-patch+json || echo json)" \
    -X "$1" "https://127.0.0.1:$PORT$2" \
    ${3:+--data-binary "$3"} >/dev/null || fail "$1 $2"
}

# The transcript of one section: each command, its output (stdout and stderr) and exit code.
SECTION=""
section() { SECTION=$1; : >"$WORK/out/$1.txt"; }
t() {
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  { echo "\$ ${*/#$ETNA/etna}"; [ -n "$out" ] && echo "$out"; echo "[exit $rc]"; } \
    >>"$WORK/out/$SECTION.txt"
}
# Ages (45s, 5m30s, 3h20m, 3d4h), dates, uids, resource versions, ports and random suffixes vary
# from run to run: each becomes a placeholder padded to the width it had with its following
# spaces in a table, so its columns keep their layout. The commands themselves are kept.
normalise() {
  perl -pe '
    next if /^\$ /;
    sub fit { my ($r, $old, $sp) = @_; return $r . $sp if length($sp) < 2;
              my $n = length($old) + length($sp) - length($r); $n = 2 if $n < 2;
              return $r . (" " x $n); }
    s/([0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9:.]+Z)?)( *)/fit("DATE", $1, $2)/ge;
    s/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})( *)/fit("UID", $1, $2)/ge;
    s/\b([0-9]+(?:s|m[0-9]*s?|h[0-9]*m?|d[0-9]*h?|y[0-9]*d?))\b( *)/fit("AGE", $1, $2)/ge;
    s/(resourceVersion"?: )"[0-9]+"/$1"RV"/g;
    s/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g;
    s/(Port:\s+)[0-9]+/$1PORT/g;
    s/-(abortjob|resumejob|openqueue|closequeue)-[a-z0-9]{5}/-$1-XXXXX/g;
  ' "$1" | sed -e "s|$WORK|WORK|g" -e "s|$FILES|FILES|g"
}
compare() {
  local name
  for name in "$@"; do
    normalise "$WORK/out/$name.txt" >"$WORK/out/$name.norm"
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
      cp "$WORK/out/$name.norm" "$GOLDEN/cli_$name.txt"
    elif ! diff -u "$GOLDEN/cli_$name.txt" "$WORK/out/$name.norm" >&2; then
      fail "transcript $name differs from golden/cli_$name.txt (UPDATE_GOLDEN=1 rewrites it)"
    fi
  done
}

# ---- vcctl's verbs ----
section vcctl
t "$ETNA" queue create -n team-a -w 2
t "$ETNA" queue create -n closed-q -S Closed
t "$ETNA" queue create -n team-a
t "$ETNA" queue list
t "$ETNA" queue get -n team-a
t "$ETNA" queue operate -n team-a -a update -w 3
t "$ETNA" queue operate -n team-a -a update -w 0
t "$ETNA" queue operate -n team-a -a close
t "$ETNA" queue operate -n team-a -a bogus
t "$ETNA" queue get -n nope
t "$ETNA" job run -N train -i busybox -m 2 -r 2 -R cpu=1,nvidia.com/gpu=1 -L cpu=1,nvidia.com/gpu=1 -q team-a
t "$ETNA" job run -N blocked -q closed-q
t "$ETNA" job run -i busybox
t "$ETNA" job run -N bad -R cpu
t "$ETNA" job list
t "$ETNA" job list -q team-a -A
t "$ETNA" job suspend -N train
t "$ETNA" job resume -N train
t "$ETNA" job suspend -N nope
t "$ETNA" get commands
t "$ETNA" get commands -n default -o jsonpath='{.action}'
t "$ETNA" pod list
t "$ETNA" job delete -N train
t "$ETNA" job delete -N train
t "$ETNA" job view -N train
t "$ETNA" queue delete -n closed-q
compare vcctl

# ---- kubectl's verbs ----
section kubectl
t "$ETNA" apply -f "$FILES/queues.yaml"
t "$ETNA" apply -f "$FILES/queues.yaml"
t "$ETNA" apply -f - <<'YAML'
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: batch
spec:
  weight: 5
YAML
t "$ETNA" apply -f "$FILES/job.yaml"
t "$ETNA" apply -f "$FILES/bad.yaml"
t "$ETNA" apply -f "$WORK/missing.yaml"
t "$ETNA" get queues
t "$ETNA" get q research -o yaml
t "$ETNA" get q research batch -o name
t "$ETNA" get vj
t "$ETNA" get vj -o wide
t "$ETNA" get vj -A --no-headers
t "$ETNA" get jobs.batch.volcano.sh bert -o jsonpath='{.spec.tasks[0].replicas}'
t "$ETNA" get pods
t "$ETNA" get pods -A
t "$ETNA" get vj -l team=none
t "$ETNA" get vj nope
t "$ETNA" get widgets
t "$ETNA" get vj -o toml
# The scheduler's view of the job, written as the controllers and scheduler would.
JOB_UID=$("$ETNA" get vj bert -o jsonpath='{.metadata.uid}')
raw POST /apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\",\"metadata\":{\"name\":\"bert-$JOB_UID\",\"ownerReferences\":[{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"name\":\"bert\",\"uid\":\"$JOB_UID\",\"controller\":true}]},\"spec\":{\"minMember\":2,\"queue\":\"research\"}}"
raw PATCH "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups/bert-$JOB_UID/status" '{"status":{"phase":"Pending","conditions":[{"type":"Unschedulable","status":"True","reason":"NotEnoughResources","message":"0/1 nodes are unavailable: 1 Insufficient nvidia.com/gpu.","lastTransitionTime":"2025-01-01T00:00:00Z"}]}}'
raw POST /api/v1/namespaces/default/events '{"apiVersion":"v1","kind":"Event","metadata":{"name":"bert.1"},"involvedObject":{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","name":"bert","namespace":"default"},"type":"Warning","reason":"PodGroupPending","message":"PodGroup default/bert unschedulable","source":{"component":"vc-scheduler"},"count":1}'
t "$ETNA" describe job bert
t "$ETNA" describe queue research
t "$ETNA" describe job nope
# The scheduler's accounting: the queue already holds 4 of its 8 GPUs; the gang needs 8.
raw PATCH /apis/scheduling.volcano.sh/v1beta1/queues/research/status '{"status":{"allocated":{"nvidia.com/gpu":"4","cpu":"2"}}}'
t "$ETNA" explain bert
t "$ETNA" explain nope
t "$ETNA" wait vj/bert --for=jsonpath='{.spec.queue}'=research --timeout 5s
t "$ETNA" wait vj bert --for=condition=Running --timeout 300ms
t "$ETNA" wait vj/nope --for=delete --timeout 1s
compare kubectl

# get -w: a row for every change after the list.
"$ETNA" get queues -w >"$WORK/watch.out" 2>&1 &
WATCH_PID=$!
wait_for_file_line "$WORK/watch.out" "research"
"$ETNA" queue create -n watched >/dev/null || fail "queue create watched"
wait_for_file_line "$WORK/watch.out" "watched"
kill "$WATCH_PID" 2>/dev/null
wait "$WATCH_PID" 2>/dev/null

# ---- GPU views, pods and logs (a node and bound pods written as the agent and scheduler do) ----
section gpus
/usr/bin/python3 "$HERE/fake_agent.py" >"$WORK/agent.port" &
AGENT_PID=$!
for _ in $(seq 1 200); do [ -s "$WORK/agent.port" ] && break; sleep 0.05; done
AGENT_PORT=$(head -1 "$WORK/agent.port")
[ -n "$AGENT_PORT" ] || fail "fake agent did not start"
"$ETNA" apply -f "$FILES/node.yaml" >/dev/null || fail "apply node"
raw PATCH /api/v1/nodes/gpu-node-1/status "{\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"3\",\"cpu\":\"64\"},\"capacity\":{\"nvidia.com/gpu\":\"4\",\"cpu\":\"64\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\"}],\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"127.0.0.1\"}],\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":$AGENT_PORT}}}}"
"$ETNA" apply -f "$FILES/pod.yaml" >/dev/null || fail "apply pods"
raw POST /api/v1/namespaces/default/pods/bert-worker-0/binding '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"bert-worker-0","annotations":{"etna.io/gpu-ids":"0,1","etna.io/gpu-uuids":"GPU-aaaa,GPU-bbbb"}},"target":{"apiVersion":"v1","kind":"Node","name":"gpu-node-1"}}'
raw POST /api/v1/namespaces/default/pods/bert-worker-1/binding '{"apiVersion":"v1","kind":"Binding","metadata":{"name":"bert-worker-1","annotations":{"etna.io/mig-instances":"3:1g.10gb:7"}},"target":{"apiVersion":"v1","kind":"Node","name":"gpu-node-1"}}'
t "$ETNA" gpus
t "$ETNA" gpus gpu-node-1
t "$ETNA" gpus nope
t "$ETNA" top
t "$ETNA" pod list -j bert
t "$ETNA" pod list -q research -A
t "$ETNA" logs bert-worker-1 --tail 2
t "$ETNA" logs bert --tail 1
t "$ETNA" logs bert --task worker --index 0 -f --tail 3
t "$ETNA" logs bert --index 5
t "$ETNA" logs nope
t "$ETNA" describe node gpu-node-1
compare gpus

# ---- help, completion, connection errors ----
section errors
t "$ETNA" get
t "$ETNA" get vj --bogus
t "$ETNA" job frobnicate
t "$ETNA" completion fish
t env KUBECONFIG="$WORK/nope" "$ETNA" get vj
t env -u KUBECONFIG HOME="$WORK" "$ETNA" get vj
stop_server
t "$ETNA" get vj
t "$ETNA" job list --kubeconfig "$KUBECONFIG_FILE"
compare errors

# Every command's help is complete: usage and flags, exit 0.
"$ETNA" --help | grep -q "explain" || fail "etna --help lacks explain"
for cmd in "job run" "job list" "job view" "job suspend" "job resume" "job delete" \
  "queue create" "queue get" "queue list" "queue operate" "queue delete" "pod list" apply get \
  delete describe logs wait gpus top explain completion; do
  # shellcheck disable=SC2086
  out=$("$ETNA" $cmd --help) || fail "etna $cmd --help exited non-zero"
  grep -q "^Usage:" <<<"$out" && grep -q "^Flags:" <<<"$out" || fail "etna $cmd --help: $out"
done
"$ETNA" completion bash | bash -n || fail "bash completion is not valid bash"
"$ETNA" completion bash | grep -q "queue operate" || fail "bash completion lacks queue operate"
if command -v zsh >/dev/null; then "$ETNA" completion zsh | zsh -n || fail "zsh completion"; fi
echo "PASS: etna cli"
