#!/usr/bin/env bash
# The `etna` user commands against a real `etna dev` (server, scheduler, controllers and two
# simulated GPU nodes whose pods run as processes, tests/e2e/cli/profile.yaml): vcctl's verbs,
# kubectl's verbs, the GPU views, logs of jobs that really ran, help and completion, and the
# errors users see, compared with golden transcripts (tests/e2e/golden/cli_*.txt) after
# normalising ages, dates, uids, ports and random suffixes. Every command waits (etna wait) for
# the state it prints, so the transcripts do not depend on timing. UPDATE_GOLDEN=1 rewrites them.
# Usage: cli_test.sh ETNA_BINARY
set -uo pipefail
ETNA=$1
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN=$HERE/golden
FILES=$HERE/cli
source "$HERE/lib.sh"

# Pods of `etna dev` outlive it (the next start adopts them): end them before it stops.
cleanup_hook() {
  [ -n "$SERVER_PID" ] || return 0
  "$ETNA" delete vj --all -A >/dev/null 2>&1
  "$ETNA" delete vj --all >/dev/null 2>&1
  for _ in $(seq 1 100); do
    [ -z "$("$ETNA" get pods -A -o name 2>/dev/null)" ] && break
    sleep 0.2
  done
}

start_dev "$ETNA" --profile "$FILES/profile.yaml" --period 300ms
export KUBECONFIG="$KUBECONFIG_FILE"
export NO_COLOR=1
mkdir -p "$WORK/out"

# The transcript of one section: each command, its output (stdout and stderr) and exit code.
SECTION=""
section() { SECTION=$1; : >"$WORK/out/$1.txt"; }
# The command as a shell would take it back: etna for the binary, quotes where needed.
shown() {
  local a line=""
  for a in "$@"; do
    [ "$a" = "$ETNA" ] && a=etna
    [[ $a =~ ^[A-Za-z0-9_./=:,@%+-]+$ ]] || a="'$(sed "s/'/'\\\\''/g" <<<"$a")'"
    line+=" $a"
  done
  echo "${line# }"
}
t() {
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  { echo "\$ $(shown "$@")"; [ -n "$out" ] && echo "$out"; echo "[exit $rc]"; } \
    >>"$WORK/out/$SECTION.txt"
}
# t_cut COLUMN command...: as t, each line cut where the header's COLUMN begins (the columns
# from there on are live readings: utilization and memory in use).
t_cut() {
  local column=$1
  shift
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  out=$(COLUMN=$column perl -ne 'BEGIN { $at = -1 }
    $at = index($_, $ENV{COLUMN}) if $at < 0 && /^NODE /;
    chomp; $_ = substr($_, 0, $at) if $at >= 0 && length($_) > $at; s/\s+$//; print "$_\n";' \
    <<<"$out")
  { echo "\$ $(shown "$@") | cut before $column"; echo "$out"; echo "[exit $rc]"; } \
    >>"$WORK/out/$SECTION.txt"
}
# must command...: a step the transcript does not show; it has to succeed.
must() { "$@" >/dev/null 2>&1 || fail "$*: $("$@" 2>&1)"; }
# poll WHAT CODE: evaluates the shell code every 0.1 s (60 s at most) until it succeeds.
poll() {
  for _ in $(seq 1 600); do
    eval "$2" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "never true: $1"
}

# Ages (45s, 5m30s, 3h20m, 3d4h), dates, uids, resource versions, ports, random suffixes and
# event counts vary from run to run: each becomes a placeholder padded to the width it had with
# its following spaces in a table, so its columns keep their layout. Commands are kept.
normalise() {
  perl -pe '
    next if /^\$ /;
    sub fit { my ($r, $old, $sp) = @_; return $r . $sp if length($sp) < 2;
              my $n = length($old) + length($sp) - length($r); $n = 2 if $n < 2;
              return $r . (" " x $n); }
    s/([0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9:.]+Z)?)( *)/fit("DATE", $1, $2)/ge;
    s/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})( *)/fit("UID", $1, $2)/ge;
    s/\b([0-9]+(?:ms|s|m[0-9]*s?|h[0-9]*m?|d[0-9]*h?|y[0-9]*d?))\b( *)/fit("AGE", $1, $2)/ge;
    s/\(x[0-9]+ over /(xN over /g;
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
W=(--timeout 60s)

# ---- vcctl's verbs: queues, a job that runs to completion, its logs, a job that holds GPUs ----
section vcctl
t "$ETNA" queue create -n team-a -w 2
t "$ETNA" queue create -n closed-q -S Closed
t "$ETNA" queue create -n team-a
must "$ETNA" wait queue/closed-q --for=jsonpath='{.status.state}'=Closed "${W[@]}"
must "$ETNA" wait queue/team-a --for=jsonpath='{.status.state}'=Open "${W[@]}"
t "$ETNA" queue get -n team-a
t "$ETNA" queue operate -n team-a -a update -w 3
t "$ETNA" queue operate -n team-a -a update -w 0
t "$ETNA" queue operate -n team-a -a bogus
t "$ETNA" queue get -n nope
t "$ETNA" job run -N blocked -q closed-q
t "$ETNA" job run -i busybox
t "$ETNA" job run -N bad -R cpu
t "$ETNA" job run -N train -i busybox -m 2 -r 2 -R cpu=1,nvidia.com/gpu=1 -L cpu=1,nvidia.com/gpu=1 \
  -q team-a --command 'echo step 1; sleep 1; echo done'
# Fails its first run; the agent restarts the container (restartPolicy OnFailure).
t "$ETNA" job run -N retry -R cpu=1 -L cpu=1 -q team-a \
  --command "if [ -f $WORK/ran ]; then echo second run; else touch $WORK/ran; echo first run; exit 3; fi"
t "$ETNA" wait vj/train --for=condition=Completed "${W[@]}"
t "$ETNA" wait vj/retry --for=condition=Completed "${W[@]}"
must "$ETNA" wait queue/team-a --for=jsonpath='{.status.completed}'=2 "${W[@]}"
t "$ETNA" job list
t "$ETNA" job list -q team-a -A
t "$ETNA" queue list
t "$ETNA" pod list -j train
t "$ETNA" job view -N train
t "$ETNA" logs train
t "$ETNA" logs train --task train --index 1 --tail 1
t "$ETNA" logs train-train-0 -f
t "$ETNA" logs train-train-0 --since 1h
t "$ETNA" logs train-train-0 --previous
t "$ETNA" logs retry --previous
t "$ETNA" logs retry -p -f
t "$ETNA" logs retry
t "$ETNA" logs train-train-0 --since 1x
t "$ETNA" logs train --index 5
t "$ETNA" logs nope
# A job that holds two GPUs until it is deleted: suspended, resumed, deleted.
t "$ETNA" job run -N hold -R nvidia.com/gpu=2 -L nvidia.com/gpu=2 -q team-a \
  --command 'echo early; sleep 5; echo late; sleep 120'
t "$ETNA" wait vj/hold --for=condition=Running "${W[@]}"
# --since: once "late" is there, the last 2 seconds never hold "early" (5 s before it).
poll "hold printed late" '"$ETNA" logs hold | grep -q late'
since=$("$ETNA" logs hold --since 2s) || fail "logs --since: $since"
grep -q early <<<"$since" && fail "logs hold --since 2s shows the line of 5 s before: $since"
t "$ETNA" job suspend -N hold
t "$ETNA" wait vj/hold --for=condition=Aborted "${W[@]}"
t "$ETNA" job resume -N hold
t "$ETNA" wait vj/hold --for=condition=Running "${W[@]}"
t "$ETNA" job suspend -N nope
t "$ETNA" queue operate -n team-a -a close
# A queue with a running job closes once the job ends: until then it is Closing.
t "$ETNA" wait queue/team-a --for=jsonpath='{.status.state}'=Closing "${W[@]}"
t "$ETNA" job run -N late -q team-a
t "$ETNA" queue operate -n team-a -a open
t "$ETNA" wait queue/team-a --for=jsonpath='{.status.state}'=Open "${W[@]}"
t "$ETNA" queue delete -n closed-q
compare vcctl

# ---- the GPU views while `hold` runs (and a node whose agent never answers) ----
section gpus
must "$ETNA" apply -f "$FILES/node.yaml"
must "$ETNA" wait queue/team-a --for=jsonpath='{.status.allocated.nvidia\.com/gpu}'=2 "${W[@]}"
t_cut UTIL "$ETNA" gpus
t "$ETNA" gpus gpu-node-1
t "$ETNA" gpus nope
t "$ETNA" top
t "$ETNA" pod list -q team-a -A
t "$ETNA" describe node gpu-node-1
t "$ETNA" job delete -N hold
t "$ETNA" wait vj/hold --for=delete "${W[@]}"
t "$ETNA" job delete -N hold
t "$ETNA" job view -N hold
compare gpus
# The live columns: every agent of etna dev answers (a reading or "-"); gpu-node-1 has none.
gpus=$("$ETNA" gpus) || fail "etna gpus: $gpus"
grep -q "UTIL   MEM USED$" <<<"$(head -1 <<<"$gpus")" || fail "etna gpus lacks UTIL: $gpus"
grep -Eq '^h100-0 .*([0-9]+%|-) +([0-9]+Mi|-)$' <<<"$gpus" || fail "etna gpus h100-0: $gpus"
grep -Eq '^gpu-node-1 .* - +-$' <<<"$gpus" || fail "etna gpus gpu-node-1: $gpus"

# ---- kubectl's verbs ----
section kubectl
t "$ETNA" apply -f "$FILES/queues.yaml"
t "$ETNA" apply -f "$FILES/queues.yaml"
# apply removes what the manifest no longer has (the last applied one is kept on the object):
# batch loses its capability.
t "$ETNA" apply -f - <<'YAML'
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: batch
spec:
  weight: 5
YAML
t "$ETNA" get q batch -o custom-columns='NAME:.metadata.name,WEIGHT:.spec.weight,CAPABILITY:.spec.capability'
t "$ETNA" apply -f "$FILES/apply"
t "$ETNA" apply -f "$FILES/bad.yaml"
t "$ETNA" apply -f "$FILES/scaledobject-as-printed.yaml"
t "$ETNA" apply -f "$WORK/missing.yaml"
# The queue controller writes the state and the scheduler the allocation, in either order.
for q in research batch from-json; do
  must "$ETNA" wait "queue/$q" --for=jsonpath='{.status.state}'=Open "${W[@]}"
  must "$ETNA" wait "queue/$q" --for=jsonpath='{.status.allocated.cpu}'=0 "${W[@]}"
done
t "$ETNA" get queues --sort-by=.metadata.name
t "$ETNA" get q -o custom-columns='NAME:.metadata.name,WEIGHT:.spec.weight,GPUS:.spec.capability.nvidia\.com/gpu' --sort-by=.spec.weight
t "$ETNA" get q research -o yaml
t "$ETNA" get q research batch -o name
t "$ETNA" get q -o jsonpath='{.items[*].metadata.name}{"\n"}'
t "$ETNA" get cm settings -o jsonpath='{.data.epochs}'
t "$ETNA" get cm settings -o json
t "$ETNA" apply -f "$FILES/job.yaml"
poll "bert has a podgroup" '"$ETNA" get podgroups -o name | grep -q bert'
# The job controller writes the job's status after its PodGroup and pods.
poll "bert has a status" '[ "$("$ETNA" get vj bert -o jsonpath={.status.state.phase})" = Pending ]'
t "$ETNA" get vj
t "$ETNA" get vj -o wide
t "$ETNA" get vj -A --no-headers
t "$ETNA" get jobs.batch.volcano.sh bert -o jsonpath='{.spec.tasks[0].replicas}'
t "$ETNA" get pods -l volcano.sh/job-name=bert -o custom-columns='NAME:.metadata.name,TASK:.metadata.labels.volcano\.sh/task-spec,IMAGES:.spec.containers[*].image,NODE:.spec.nodeName' --sort-by=.metadata.name
t "$ETNA" get vj -l team=none
t "$ETNA" get vj nope
t "$ETNA" get widgets
t "$ETNA" get vj -o toml
t "$ETNA" get vj -o 'custom-columns=NAME'
t "$ETNA" get vj -w -o name
t "$ETNA" wait vj/bert --for=jsonpath='{.spec.queue}'=research --timeout 5s
t "$ETNA" wait vj bert --for=condition=Running --timeout 300ms
t "$ETNA" wait vj/nope --for=delete --timeout 1s
compare kubectl

# get -w and --watch-only: a row for each change after the list. Polls change a config map
# until the watch shows it (whenever its stream opens), so rows repeat: the transcript keeps
# each distinct line once, in order.
watch_transcript() {
  local flag=$1 out=$WORK/watch$1.out i=0
  "$ETNA" get configmaps "$flag" >"$out" 2>&1 &
  local pid=$!
  until grep -q watched "$out"; do
    [ $((i += 1)) -le 300 ] || fail "get configmaps $flag never showed the change: $(cat "$out")"
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: watched}\ndata: {n: "%s"}\n' "$i" |
      "$ETNA" apply -f - >/dev/null || fail "apply watched"
    sleep 0.1
  done
  must "$ETNA" delete cm watched
  poll "the deletion reaches the watch" '[ "$(grep -c watched "$out")" -ge 2 ]'
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  { echo "\$ etna get configmaps $flag  (watched made, changed, then deleted)"
    awk '!seen[$0]++' "$out"; } >>"$WORK/out/watch.txt"
}
section watch
watch_transcript -w
watch_transcript --watch-only
compare watch

# ---- why a job is pending: it asks for 16 GPUs per pod; the queue allows 8 in all ----
section explain
poll "the scheduler found bert unschedulable" \
  '"$ETNA" get podgroups -o jsonpath="{.items[*].status.conditions[*].type}" | grep -q Unschedulable'
t "$ETNA" explain bert
t "$ETNA" explain nope
t "$ETNA" describe job bert
# The queue controller writes PodGroup counts within a second of a change (kCountsDelay).
poll "queue research counts bert's PodGroup" \
  '[ "$("$ETNA" get queue research -o jsonpath="{.status.pending}")" = 1 ]'
t "$ETNA" describe queue research
t "$ETNA" describe job nope
t "$ETNA" delete vj bert
t "$ETNA" delete -f "$FILES/apply"
t "$ETNA" delete q research batch
compare explain

# ---- errors without a server or kubeconfig, then help and completion ----
section errors
t "$ETNA" get
t "$ETNA" get vj --bogus
t "$ETNA" job frobnicate
t "$ETNA" completion fish
t env KUBECONFIG="$WORK/nope" "$ETNA" get vj
t env -u KUBECONFIG HOME="$WORK" "$ETNA" get vj
cleanup_hook
stop_server
t "$ETNA" get vj
t "$ETNA" job list --kubeconfig "$KUBECONFIG_FILE"
compare errors

# Every command's help, so a change is seen (and each has usage and flags, exit 0).
section help
t "$ETNA" --help
for cmd in "job run" "job list" "job view" "job suspend" "job resume" "job delete" \
  "queue create" "queue get" "queue list" "queue operate" "queue delete" "pod list" apply get \
  delete describe logs wait gpus top explain completion job queue; do
  # shellcheck disable=SC2086
  out=$("$ETNA" $cmd --help) || fail "etna $cmd --help exited non-zero"
  case $cmd in job | queue) ;; *)
    grep -q "^Usage:" <<<"$out" && grep -q "^Flags:" <<<"$out" || fail "etna $cmd --help: $out" ;;
  esac
  # shellcheck disable=SC2086
  t "$ETNA" $cmd --help
done
t "$ETNA" completion bash
t "$ETNA" completion zsh
compare help

# Completion: valid scripts that complete; zsh's loaded by compinit where zsh is installed.
"$ETNA" completion bash | bash -n || fail "bash completion is not valid bash"
words=$(bash -c 'source <("$0" completion bash)
  COMP_WORDS=(etna queue op); COMP_CWORD=2; _etna; echo "${COMPREPLY[*]}"' "$ETNA")
[ "$words" = operate ] || fail "bash completion of 'etna queue op': \"$words\""
words=$(bash -c 'source <("$0" completion bash)
  COMP_WORDS=(etna get qu); COMP_CWORD=2; _etna; echo "${COMPREPLY[*]}"' "$ETNA")
[ "$words" = "queuebindings queues" ] || fail "bash completion of 'etna get qu': \"$words\""
if command -v zsh >/dev/null; then
  "$ETNA" completion zsh | zsh -n || fail "zsh completion is not valid zsh"
  loaded=$(HOME=$WORK zsh -f -c 'autoload -U compinit; compinit -u -D
    source <("$1" completion zsh); print -r -- "${_comps[etna]} $(_etna_path job ru) $(_etna_path job run)"' \
    zsh "$ETNA" 2>&1)
  [ "$loaded" = "_etna job job run" ] || fail "zsh completion did not load: $loaded"
fi
echo "PASS: etna cli"
