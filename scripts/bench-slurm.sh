#!/usr/bin/env bash
# make bench-slurm: Slurm on the workload of etna's end-to-end benchmark (bench/volcano_workload.h),
# so the comparison can be reproduced on one machine. Optional; not part of `make test`.
#
# Installs Debian's slurmctld (and munge) if missing, runs one slurmctld under a temp dir on a
# loopback port with 1,000 CLOUD nodes of 8 GPUs that have no slurmd behind them, submits the jobs
# printed by `bench_workload` with parallel sbatch workers, waits until the allocated GPUs stop
# growing, and prints exactly one line:
#   BENCH e2e system=slurm nodes=<n> jobs=<n> pods=<n> submit_s=<x> fill_s=<x> gpus_allocated=<n>
#     jobs_per_s=<x> bind_p50_ms=<x> bind_p99_ms=<x> server_rss_mb=<n> scheduler_rss_mb=<n>
#     controllers_rss_mb=0
# Why CLOUD nodes: a job allocated to a powered-down CLOUD node gets its nodes at once and waits in
# CONFIGURING for them to boot (ResumeProgram is /bin/true, ResumeTimeout is hours), so slurmctld
# does all of its scheduling work without a slurmd per node; the allocation is what we measure.
#
# Usage: scripts/bench-slurm.sh [BUILD_DIR] [--nodes 1000] [--jobs 10000] [--scale 10000]
#          [--workers 4] [--settle 20] [--seed 42] [--keep]
#   --scale N  N nodes and 10 N jobs (--scale 10000: 10,000 nodes, 100,000 jobs, as etna's bench)
#   --settle S the fill is over when the allocated GPUs have not grown for S seconds
#   --keep     keep the temp dir (slurm.conf, slurmctld.log, per-job times) and print its path
#   env: SCHED_PARAMS replaces SchedulerParameters (to try others); TMPDIR holds the temp dir.
#
# What bounds Slurm here: each sbatch RPC spends ~15 ms inside slurmctld at 1,000 nodes (~1 ms
# at 50; `usec=` in slurmctld.log), so the fill follows the submit rate: the ~1,700 jobs that
# fill 8,000 GPUs are each allocated about a second after they are submitted.
set -euo pipefail

BUILD=build
SUBMIT_PIDS=()
NODES=1000
JOBS=10000
WORKERS=4
SETTLE=20
SEED=42
KEEP=0
GPUS_PER_NODE=8
MAX_WAIT_S=3600 # give up waiting for the fill after this long

die() {
  echo "bench-slurm: $*" >&2
  exit 1
}

log() { echo "bench-slurm: $*" >&2; }

parse_args() {
  while (($#)); do
    case $1 in
      --nodes) NODES=${2:?}; shift ;;
      --jobs) JOBS=${2:?}; shift ;;
      --scale) NODES=${2:?}; JOBS=$((10 * ${2:?})); shift ;;
      --workers) WORKERS=${2:?}; shift ;;
      --settle) SETTLE=${2:?}; shift ;;
      --seed) SEED=${2:?}; shift ;;
      --keep) KEEP=1 ;;
      -h | --help) sed -n '2,25p' "$0"; exit 0 ;;
      -*) die "unknown flag $1" ;;
      *) BUILD=$1 ;;
    esac
    shift
  done
  local name
  for name in NODES JOBS WORKERS SETTLE; do
    [[ ${!name} =~ ^[1-9][0-9]*$ ]] || die "--${name,,}: ${!name} is not a positive whole number"
  done
  [[ $SEED =~ ^[0-9]+$ ]] || die "--seed: $SEED is not a whole number"
  WORKLOAD_BIN=$BUILD/bench/bench_workload
  [[ -x $WORKLOAD_BIN ]] || die "$WORKLOAD_BIN not found (run: make bench-slurm, or build it)"
}

# slurmctld and the client commands (sbatch, squeue) are all that is needed; munge authenticates
# the RPCs between them as on any real cluster. --no-install-recommends keeps out slurmd & co.
install_slurm() {
  command -v slurmctld >/dev/null && command -v sbatch >/dev/null && command -v munged >/dev/null &&
    return
  log "installing slurmctld, slurm-client and munge from apt"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurmctld slurm-client munge >/dev/null
}

# A loopback port nobody listens on (slurmctld takes PORT..PORT+3, see write_conf).
pick_port() {
  local p q busy
  for p in $(seq 16817 4 16917); do
    busy=0
    for q in $(seq "$p" $((p + 3))); do
      (exec 3<>"/dev/tcp/127.0.0.1/$q") 2>/dev/null && busy=1
    done
    if ((!busy)); then
      PORT=$p
      return
    fi
  done
  die "no free port in 16817-16917"
}

# The same jobs as etna's bench, as `name nodes gpus cpus mem_gib` lines (bench_workload prints
# `job-00001 nodes=1 gpus_per_node=4 cpus_per_node=32 memory_gib_per_node=256`).
write_workload() {
  "$WORKLOAD_BIN" --jobs "$JOBS" --seed "$SEED" |
    awk '{ for (i = 2; i <= NF; i++) sub(/^[a-z_]+=/, "", $i); print }' >"$DIR/jobs.txt"
  [[ $(wc -l <"$DIR/jobs.txt") -eq $JOBS ]] || die "bench_workload printed the wrong number of jobs"
}

# munged on a socket of our own, so nothing under /run is touched; --force because it runs as root.
start_munge() {
  mkdir -p "$DIR/munge"
  chmod 700 "$DIR/munge"
  munged --force --socket="$DIR/munge/munge.socket" --key-file=/etc/munge/munge.key \
    --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/munge/munged.log" \
    --seed-file="$DIR/munge/munged.seed" --num-threads=4
  MUNGE_PID=$(cat "$DIR/munge/munged.pid")
}

write_conf() {
  local last sched
  last=$(printf 'n%05d' "$NODES")
  # SchedulerParameters, explained where the file uses them.
  sched=sched_min_interval=100000,batch_sched_delay=0,default_queue_depth=1000,sched_interval=5
  sched+=,bf_interval=1,bf_continue,bf_max_job_test=$JOBS,bf_resolution=600,bf_window=60
  sched+=,bf_yield_interval=1000000,max_rpc_cnt=150
  cat >"$DIR/gres.conf" <<EOF
# Counts only: no device files, nothing runs on these nodes.
NodeName=n[00001-${last#n}] Name=gpu Count=$GPUS_PER_NODE
EOF
  cat >"$DIR/slurm.conf" <<EOF
ClusterName=bench
# sbatch and squeue connect to the address in parentheses, loopback (slurmctld 22.05 still
# listens on every address; CommunicationParameters=NoInAddrAny does not change that).
SlurmctldHost=$(hostname -s)(127.0.0.1)
# A range of ports spreads the sbatch connections over 4 listening sockets (high_throughput guide).
SlurmctldPort=$PORT-$((PORT + 3))
SlurmdPort=$((PORT + 50))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmctldLogFile=$DIR/slurmctld.log
# info logs one line per submit and per allocation; with millisecond stamps they give bind latency.
# (About 2 lines per job: not measurable next to the scheduling work.)
SlurmctldDebug=info
LogTimeFormat=iso8601_ms
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
# Nothing to account: no slurmdbd, no job completion log, FIFO priority (no multifactor cycles).
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
PriorityType=priority/basic
# Every job stays queued or allocated for the whole run, so the job table must hold all of them.
MaxJobCount=$((JOBS + 1000))
MinJobAge=300
# Scheduling: GPUs, cores and memory are all consumable, as in etna.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
SchedulerType=sched/backfill
# High-throughput settings (https://slurm.schedmd.com/high_throughput.html), tuned for the fastest
# fill of an empty cluster by a burst of submits:
#  - no defer: a job that fits is allocated inside its submit RPC, and the main scheduler runs
#    after submits (throttled by sched_min_interval) while the burst still arrives. With defer the
#    fill took the same time (58.7 s against 59.2 s for the first 2,500 jobs): it is submit-bound.
#  - sched_min_interval=100000 (100 ms between main passes, so submits are not starved);
#    batch_sched_delay=0 (start batch jobs as soon as they are allocated).
#  - default_queue_depth=1000: each event-driven pass tests up to 1,000 jobs (default 100);
#    sched_interval=5: a full-queue main pass every 5 s (default 60).
#  - the main scheduler is strict FIFO per partition (it stops at the first job that does not fit),
#    so once the cluster is fragmented the backfill scheduler fills the holes: bf_interval=1,
#    bf_continue, bf_max_job_test = all jobs, bf_resolution=600 and bf_window=60 (all jobs are
#    30 minutes, no need for finer time slots), bf_yield_interval 1 s so RPCs get in.
#  - max_rpc_cnt=150: the scheduler yields its locks when 150 RPC threads wait.
SchedulerParameters=${SCHED_PARAMS:-$sched}
# Generous timeouts: a busy controller must not make sbatch fail and retry.
MessageTimeout=60
TCPTimeout=30
# CLOUD nodes without slurmd: a job on them is allocated at once (what we measure) and then waits
# in CONFIGURING for a boot that never comes. ResumeProgram does nothing; ResumeTimeout (after
# which the nodes would go DOWN and the jobs be requeued) outlasts the benchmark; ResumeRate=0
# lifts the default limit of 300 node resumes a minute; SuspendTime=INFINITE: never power down.
ResumeProgram=/bin/true
ResumeTimeout=36000
ResumeRate=0
SuspendTime=INFINITE
NodeName=n[00001-${last#n}] CPUs=64 RealMemory=524288 Gres=gpu:$GPUS_PER_NODE State=CLOUD
PartitionName=bench Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  mkdir -p "$DIR/state"
}

start_slurmctld() {
  export SLURM_CONF=$DIR/slurm.conf
  # -c: start with no saved state; -i: ignore errors reading it. Daemonizes; its pid is in the file.
  slurmctld -c -i
  for _ in $(seq 1 100); do
    [[ -s $DIR/slurmctld.pid ]] && scontrol ping >/dev/null 2>&1 && break
    sleep 0.2
  done
  if ! scontrol ping >/dev/null 2>&1; then
    tail -20 "$DIR/slurmctld.log" >&2
    die "slurmctld did not come up"
  fi
  CTLD_PID=$(cat "$DIR/slurmctld.pid")
}

cleanup() {
  local rc=$? p
  for p in "${SUBMIT_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [[ -n ${CTLD_PID:-} ]]; then
    kill "$CTLD_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$CTLD_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$CTLD_PID" 2>/dev/null || true
  fi
  if [[ -n ${MUNGE_PID:-} ]]; then kill "$MUNGE_PID" 2>/dev/null || true; fi
  if ((KEEP)); then
    log "kept $DIR"
  else
    rm -rf "$DIR"
  fi
  exit "$rc"
}

# One worker: sbatch its share of the jobs one after another, logging `jobid name` as accepted.
submit_worker() {
  local name nodes gpus cpus mem id
  while read -r name nodes gpus cpus mem; do
    id=$(sbatch --parsable -J "$name" -N "$nodes" --ntasks-per-node=1 --cpus-per-task="$cpus" \
      --mem="${mem}G" --gres="gpu:$gpus" --time=30 -o /dev/null --wrap 'sleep 1800')
    echo "$id $name"
  done <"$1" >"$2"
}

# Deal the jobs round-robin to the workers so the queue keeps roughly the workload's order.
submit_all() {
  local w
  for ((w = 0; w < WORKERS; w++)); do
    awk -v w="$w" -v n="$WORKERS" '(NR - 1) % n == w' "$DIR/jobs.txt" >"$DIR/part.$w"
  done
  T0=$EPOCHREALTIME
  for ((w = 0; w < WORKERS; w++)); do
    submit_worker "$DIR/part.$w" "$DIR/ids.$w" &
    SUBMIT_PIDS+=($!)
  done
}

# Everything is measured from slurmctld's own log, so watching the fill sends it no RPCs (a squeue
# every second took ~0.4 s of its job lock at 1,000 nodes): submits (`_slurm_rpc_submit_batch_job:
# JobId=`) and allocations by the main scheduler (`Allocate JobId=`) or backfill (`Started JobId=`),
# with millisecond stamps. Joined with the workers' `jobid name` lists and the workload's GPU
# counts. Prints: gpus jobs_allocated jobs_submitted submit_s fill_s (both from the first submit
# to the last submit / allocation); with an argument, writes each job's submit-to-allocation ms.
scan_log() {
  cat "$DIR"/ids.[0-9]* | awk -v out="${1:-}" '
    function ms(ts,   t, v) {  # [2026-12-02T03:10:11.123] -> ms, across midnight too
      split(substr(ts, 13, 12), t, ":"); v = ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 + day
      if (v < last - 43200000) { day += 86400000; v += 86400000 }
      last = v; return v
    }
    FILENAME == ARGV[1] { gpus[$1] = $2 * $3; next }   # jobs.txt: name nodes gpus cpus mem
    FILENAME == "-" { name[$1] = $2; next }            # the workers: jobid name
    /_slurm_rpc_submit_batch_job: JobId=/ {
      id = $0; sub(/.*JobId=/, "", id); sub(/ .*/, "", id); t = ms($1)
      if (!nsub++) first = t
      submit[id] = t; last_sub = t; next
    }
    /(Allocate|Started) JobId=/ {
      id = $0; sub(/.*JobId=/, "", id); sub(/ .*/, "", id)
      if (id in alloc) next
      alloc[id] = ms($1); last_alloc = alloc[id]
    }
    END {
      for (id in alloc) {
        if (!(id in name)) continue   # not yet in the lists: counted on the next scan
        g += gpus[name[id]]; n++
        # A job that fits at once is allocated inside its submit RPC, logged before the submit line.
        d = (id in submit) ? alloc[id] - submit[id] : 0
        if (out != "") print (d < 0 ? 0 : d) > out
      }
      printf "%d %d %d %.3f %.3f\n", g, n, nsub, (last_sub - first) / 1000, \
        (n ? (last_alloc - first) / 1000 : 0)
    }' "$DIR/jobs.txt" - "$DIR/slurmctld.log"
}

# Once a second until every GPU is allocated, or the count has not grown for SETTLE seconds after
# the last submit.
wait_fill() {
  local total=$((NODES * GPUS_PER_NODE)) gpus=0 g last_change=0 t submitting=1 p
  while :; do
    if ((submitting)); then
      submitting=0
      for p in "${SUBMIT_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && submitting=1; done
    fi
    read -r g _ < <(scan_log)
    t=$(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", b - a }')
    if ((g > gpus)); then
      gpus=$g
      last_change=$t
    fi
    ((gpus >= total)) && break
    ((!submitting && t - last_change >= SETTLE)) && break
    ((t > MAX_WAIT_S)) && { log "gave up after ${MAX_WAIT_S}s"; break; }
    sleep 1
  done
}

# The workers may still run if every GPU filled first: wait for them, then measure from the log,
# and check the GPU count against one squeue (RUNNING or CONFIGURING jobs).
measure() {
  local total=$((NODES * GPUS_PER_NODE)) sq
  wait "${SUBMIT_PIDS[@]}" || die "an sbatch worker failed"
  [[ $(cat "$DIR"/ids.[0-9]* | wc -l) -eq $JOBS ]] || die "not every job was accepted"
  read -r GPUS STARTED NSUB SUBMIT_S FILL_S < <(scan_log "$DIR/bind_ms.txt")
  ((NSUB == JOBS)) || die "slurmctld.log shows $NSUB submits, not $JOBS"
  sq=$(squeue -h -t CF,R -o '%j' |
    awk 'NR == FNR { g[$1] = $2 * $3; next } { s += g[$1] } END { print s + 0 }' "$DIR/jobs.txt" -)
  ((sq == GPUS)) || log "warning: squeue shows $sq GPUs allocated, the log $GPUS"
  log "submitted $JOBS jobs in ${SUBMIT_S}s; $GPUS of $total GPUs, $STARTED jobs at ${FILL_S}s"
  read -r P50 P99 < <(sort -n "$DIR/bind_ms.txt" | awk '{ v[NR] = $1 }
    END { if (!NR) { print 0, 0; exit }
          i50 = int(NR * 0.50 + 0.999); i99 = int(NR * 0.99 + 0.999)
          print v[i50 < 1 ? 1 : i50], v[i99 < 1 ? 1 : i99] }')
}

peak_rss_mb() { awk '/^VmHWM:/ { printf "%d", $2 / 1024 }' "/proc/$1/status"; }

report() {
  local pods rss jps
  pods=$(awk '{ s += $2 } END { print s }' "$DIR/jobs.txt")
  rss=$(peak_rss_mb "$CTLD_PID")
  jps=$(awk -v n="$STARTED" -v t="$FILL_S" 'BEGIN { printf "%.1f", (t > 0 ? n / t : 0) }')
  echo "BENCH e2e system=slurm nodes=$NODES jobs=$JOBS pods=$pods submit_s=$SUBMIT_S" \
    "fill_s=$FILL_S gpus_allocated=$GPUS jobs_per_s=$jps bind_p50_ms=$P50 bind_p99_ms=$P99" \
    "server_rss_mb=$rss scheduler_rss_mb=$rss controllers_rss_mb=0"
}

main() {
  parse_args "$@"
  install_slurm
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/bench-slurm.XXXXXX")
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  write_workload
  pick_port
  start_munge
  write_conf
  start_slurmctld
  log "slurmctld $CTLD_PID up on 127.0.0.1:$PORT with $NODES nodes; submitting $JOBS jobs" \
    "from $WORKERS workers"
  submit_all
  wait_fill
  measure
  report
}

main "$@"
