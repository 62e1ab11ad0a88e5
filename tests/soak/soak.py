#!/usr/bin/python3
"""The soak (`make soak`): M minutes of churn on a whole etna cluster run as `etna dev` runs it,
but each part its own process (tests/e2e/cluster.py): `etna server`, `etna scheduler`, `etna
controllers` and one `etna agent` per simulated 8-GPU node.

  - churn: Volcano Jobs of every shape (workload.py) submitted over HTTPS, a random share of them
    deleted, finished ones cleaned up, while at most --max-pending wait;
  - chaos: the scheduler, a random agent and (unless --no-kill-controllers) the controllers are
    SIGKILLed at random intervals and restarted after a random pause (an agent's pause is at
    times longer than its lease, so its node is lost and its pods fail over);
  - checks: invariants.py reads every write of pods, jobs and PodGroups (watch.py), the soak's
    own record of acknowledged creates and deletes, the pods' processes and the server's and
    scheduler's memory (probes.py).

Then a drain (no churn, no kills) until every job is terminal or Running (or no job changed
phase for --drain-minutes), every job deleted and its processes checked gone. Prints each
violation, then

  SOAK minutes=<m> jobs=<n> kills=<n> violations=<n> max_rss_mb=<server>/<scheduler>

and exits 1 if there was a violation. The cluster's logs and a trace of every event are kept in
--keep DIR (default: a new /tmp/etna-soak-* directory when there were violations).

Usage: soak.py --etna PATH [--minutes 30] [--nodes 4] [--seed N]
"""
import argparse
import collections
import http.client
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from cluster import Cluster, h100_profile, rss_mb  # noqa: E402
from invariants import TERMINAL_JOB_PHASES, InvariantChecker  # noqa: E402
from probes import describe_process, kill_run_processes, pod_processes  # noqa: E402
from watch import watch_all  # noqa: E402
import workload  # noqa: E402

JOBS = "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"


class Soak:
    def __init__(self, cluster, args):
        self.c, self.args = cluster, args
        self.rng = random.Random(args.seed)
        self.run_id = f"{args.seed}-{os.getpid()}"
        self.checker = InvariantChecker(gang_grace_s=args.gang_grace)
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.stop_chaos = threading.Event()
        self.stop_probes = threading.Event()
        self.kills = collections.Counter()
        self.submitted = 0
        self.refused = collections.Counter()
        self.shapes = collections.Counter()
        self.live = set()      # job names acknowledged and not yet deleted by us
        self.trace = open(os.path.join(cluster.work, "events.jsonl"), "w")

    def now(self):
        return time.monotonic() - self.t0

    # ---- feeding the checker ----

    def on_watch_event(self, kind, event_type, obj):
        meta = obj["metadata"]
        with self.lock:
            t = self.now()
            if kind == "Event":  # only for the trace: who did what, to explain a violation
                if event_type != "DELETED":
                    involved = obj.get("involvedObject", {})
                    self.trace.write(json.dumps({
                        "t": round(t, 3), "kind": "Event", "about": involved.get("name"),
                        "reason": obj.get("reason"), "message": obj.get("message"),
                        "source": obj.get("source", {}).get("component"),
                        "count": obj.get("count")}) + "\n")
                return
            self.checker.on_event(t, kind, event_type, obj)
            record = {"t": round(t, 3), "kind": kind, "type": event_type,
                      "name": meta.get("name"), "uid": meta.get("uid"),
                      "rv": meta.get("resourceVersion"),
                      "deleting": "deletionTimestamp" in meta}
            if kind == "Pod":
                record.update(node=obj.get("spec", {}).get("nodeName"),
                              phase=obj.get("status", {}).get("phase"),
                              gpus=(meta.get("annotations") or {}).get("etna.io/gpu-ids"),
                              reason=obj.get("status", {}).get("reason"),
                              message=obj.get("status", {}).get("message"),
                              conditions=[f"{c.get('type')}={c.get('status')}/{c.get('reason')}"
                                          for c in obj.get("status", {}).get("conditions", [])
                                          if c.get("type") == "DisruptionTarget"])
            elif kind == "Job":
                record["phase"] = obj.get("status", {}).get("state", {}).get("phase")
            else:
                record.update(phase=obj.get("status", {}).get("phase"),
                              min=obj.get("spec", {}).get("minMember"))
            self.trace.write(json.dumps(record) + "\n")

    def component(self, name, up):
        with self.lock:
            self.checker.on_component(self.now(), name, up)
            self.trace.write(json.dumps({"t": round(self.now(), 3), "component": name,
                                         "up": up}) + "\n")

    def probe_loop(self):
        """Pods' processes every second, memory every 5 s, the gang clock every second."""
        last_rss = 0.0
        while not self.stop_probes.wait(1.0):
            t = self.now()
            procs = pod_processes(self.run_id)
            with self.lock:
                self.checker.on_processes(t, procs)
                self.checker.tick(t)
                for uid, (node, gpus, pid) in procs.items():
                    if uid in self.checker.deleted_pods:  # for the trace: how long it lived
                        self.trace.write(json.dumps({
                            "t": round(t, 3), "kind": "Process", "uid": uid, "node": node,
                            "gpus": ",".join(gpus), "process": describe_process(pid)}) + "\n")
            if t - last_rss >= 5:
                last_rss = t
                for name in ("server", "scheduler"):
                    pid = self.c.pid(name)
                    mb = rss_mb(pid) if pid else None
                    if mb is not None:
                        with self.lock:
                            self.checker.on_rss(t, name, mb)

    # ---- chaos ----

    def restart(self, name):
        if name == "scheduler":
            self.c.start_scheduler()
        elif name == "controllers":
            self.c.start_controllers()
        else:
            self.c.start_agent(name[len("agent-"):])

    def kill(self, name, pause):
        self.component(name, False)
        self.c.stop(name, signal.SIGKILL)
        self.kills[name.split("-")[0]] += 1
        self.stop_chaos.wait(pause)
        self.restart(name)
        self.component(name, True)

    def chaos_loop(self, seed, pick, every, pause):
        """Kills pick() every uniform(*every) s, restarting it after uniform(*pause) s."""
        rng = random.Random(seed)
        while not self.stop_chaos.wait(rng.uniform(*every)):
            self.kill(pick(rng), rng.uniform(*pause))

    # ---- churn ----

    def job_phases(self):
        with self.lock:
            return {k.split("/", 1)[1]: (j.phase, j.phases[-1][0] if j.phases else None)
                    for k, j in self.checker.jobs.items()
                    if j.acked_t is not None and j.delete_t is None and j.gone_t is None}

    def submit(self):
        name = f"soak-{self.submitted}"
        body, shape = workload.make_job(self.rng, name, self.run_id)
        try:
            status, answer = self.c.request("POST", JOBS, body)
        except (OSError, http.client.HTTPException) as e:
            self.refused[type(e).__name__] += 1
            return
        self.submitted += 1
        if 200 <= status < 300:
            with self.lock:
                self.checker.on_job_acknowledged(self.now(), f"default/{name}")
            self.live.add(name)
            self.shapes[shape.split("/")[0]] += 1
        else:
            self.refused[status] += 1
            print(f"t={self.now():.1f}: create {name} ({shape}): HTTP {status} {answer}",
                  flush=True)

    def delete(self, name):
        with self.lock:
            self.checker.on_job_delete_requested(self.now(), f"default/{name}")
        self.live.discard(name)
        try:
            status, _ = self.c.request("DELETE", f"{JOBS}/{name}",
                                       {"propagationPolicy": "Background"})
        except (OSError, http.client.HTTPException):
            return
        if status not in (200, 202, 404):
            print(f"t={self.now():.1f}: delete {name}: HTTP {status}", flush=True)

    def churn_step(self):
        phases = self.job_phases()
        waiting = [n for n, (p, _) in phases.items() if p in (None, "Pending")]
        active = [n for n, (p, _) in phases.items() if p not in TERMINAL_JOB_PHASES]
        # finished jobs without a TTL are cleaned up after 30 s, as a user would
        for n, (p, since) in phases.items():
            if p in TERMINAL_JOB_PHASES and since is not None and self.now() - since > 30:
                self.delete(n)
        if active and self.rng.random() < 0.12:
            self.delete(self.rng.choice(active))
        if len(waiting) < self.args.max_pending:
            self.submit()

    def drain(self, stall_s, cap_s):
        """Waits until every job we did not delete is terminal or Running. Jobs queue behind
        long runs of whole nodes, so it gives up only when no job has changed phase for
        stall_s (a lost job makes no progress), or after cap_s in all."""
        start = time.monotonic()
        while time.monotonic() - start < cap_s:
            phases = self.job_phases()
            unsettled = [n for n, (p, _) in phases.items()
                         if p not in TERMINAL_JOB_PHASES + ("Running",)]
            if not unsettled:
                return True
            with self.lock:
                last_change = max((j.phases[-1][0] for j in self.checker.jobs.values()
                                   if j.phases), default=0.0)
            if self.now() - max(last_change, start - self.t0) > stall_s:
                return False
            time.sleep(2)
        return False

    def progress(self):
        with self.lock:
            counts = collections.Counter(j.phase for j in self.checker.jobs.values()
                                         if j.gone_t is None and j.delete_t is None)
            violations = len(self.checker.violations)
        print(f"t={self.now():.0f}s jobs={self.submitted} kills={sum(self.kills.values())} "
              f"violations={violations} phases={dict(counts)}", flush=True)

    def run(self):
        m = self.args
        self.c.apply(workload.QUEUES_YAML)
        for name in ["scheduler"] + [f"agent-{n}" for n in self.c.nodes] + ["controllers"]:
            self.component(name, True)
        watches = watch_all(self.c, self.on_watch_event)
        probes = threading.Thread(target=self.probe_loop, daemon=True)
        probes.start()
        agents = [f"agent-{n}" for n in self.c.nodes]
        chaos = [threading.Thread(target=self.chaos_loop, daemon=True,
                                  args=(m.seed * 10 + i,) + a) for i, a in enumerate([
            (lambda r: "scheduler", (30, 90), (0.5, 5)),
            (lambda r: r.choice(agents), (20, 60), (1, 2.5 * m.lease)),
        ] + ([] if m.no_kill_controllers else [(lambda r: "controllers", (60, 180), (0.5, 5))]))]
        for t in chaos:
            t.start()
        end = time.monotonic() + m.minutes * 60
        next_progress = time.monotonic() + 60
        while time.monotonic() < end:
            self.churn_step()
            time.sleep(self.rng.uniform(0.3, 2.0))
            if time.monotonic() >= next_progress:
                self.progress()
                next_progress += 60
        self.stop_chaos.set()
        for t in chaos:
            t.join()
        print(f"t={self.now():.0f}s churn over; draining (every component up)", flush=True)
        settled = self.drain(m.drain_minutes * 60, 4 * m.drain_minutes * 60)
        with self.lock:
            self.checker.finish(self.now())
        if not settled:
            print("the drain stalled: the jobs not settled are reported as job-lost")
        # every job deleted: their pods must go and their processes with them
        for name in list(self.live):
            self.delete(name)
        for name, _ in self.job_phases().items():
            self.delete(name)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.c.pods():
            time.sleep(1)
        time.sleep(self.checker.orphan_grace_s + 3)  # the process probe's last look
        self.stop_probes.set()
        probes.join()
        for left in kill_run_processes(self.run_id):
            print(f"killed a process of a pod still running at the end: {left}")
        for w in watches:
            w.stop.set()
        self.trace.close()
        return [w.relists for w in watches[:3]]

    def report(self):
        v = self.checker.violations
        for violation in sorted(v, key=lambda x: x.t):
            print(f"VIOLATION {violation.kind} at t={violation.t:.1f}: {violation.message}")
        print(f"shapes={dict(self.shapes)} kills={dict(self.kills)} refused={dict(self.refused)}"
              f" watch_events={self.checker.events} gang_binds={self.checker.gang_binds}"
              f" longest_partial_gang_s={self.checker.longest_partial_s:.1f}")
        print(f"SOAK minutes={self.args.minutes:g} jobs={self.submitted} "
              f"kills={sum(self.kills.values())} violations={len(v)} "
              f"max_rss_mb={self.checker.max_rss('server'):.0f}/"
              f"{self.checker.max_rss('scheduler'):.0f}", flush=True)
        return len(v)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--etna", required=True, help="the etna binary")
    p.add_argument("--minutes", type=float, default=30, help="minutes of churn (default 30)")
    p.add_argument("--nodes", type=int, default=4, help="simulated 8-GPU H100 nodes (default 4)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-pending", type=int, default=8,
                   help="no new job while this many wait (default 8)")
    p.add_argument("--lease", type=int, default=8, help="agents' --lease-seconds (default 8)")
    p.add_argument("--gang-grace", type=float, default=30,
                   help="seconds of scheduler uptime a bind may leave a gang partial (30)")
    p.add_argument("--drain-minutes", type=float, default=5,
                   help="end the drain when no job changed phase for this long (5; at most 4x)")
    p.add_argument("--no-kill-controllers", action="store_true")
    p.add_argument("--keep", help="copy the cluster's logs and the event trace here")
    args = p.parse_args()
    nodes = [f"h100-{i}" for i in range(args.nodes)]
    with Cluster(args.etna, h100_profile(args.nodes), nodes, lease_seconds=args.lease,
                 period="500ms") as c:
        soak = Soak(c, args)
        print(f"soak: {args.minutes:g} min on {args.nodes} nodes, seed {args.seed}, "
              f"work dir {c.work}", flush=True)
        relists = soak.run()
        print(f"watch lists of pods, jobs, podgroups (1: never listed again): {relists}")
        violations = soak.report()
        keep = args.keep or (tempfile.mkdtemp(prefix="etna-soak-") if violations else None)
        if keep:
            os.makedirs(keep, exist_ok=True)
            for f in os.listdir(c.work):
                if f.endswith(".log") or f.endswith(".jsonl"):
                    shutil.copy(os.path.join(c.work, f), keep)
            print(f"logs and events.jsonl kept in {keep}")
    sys.exit(1 if violations else 0)


if __name__ == "__main__":
    main()
