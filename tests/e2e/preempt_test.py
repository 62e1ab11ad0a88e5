#!/usr/bin/python3
"""End to end: preemption and reclaim by the seed's rules (docs/design.md) on real `etna` processes.
  - preempt: a high-priority gang evicts the elastic members (above minAvailable) of a
    low-priority job in the same queue; victims are marked (DisruptionTarget, Preempted), get
    SIGTERM and their grace period, and are requeued as new pending pods;
  - reclaim: a queue under its deserved share takes GPUs back from a queue above its own.

Usage: preempt_test.py ETNA_BINARY
"""
import os
import re
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, h100_profile, worker_job  # noqa: E402

PROFILE = h100_profile(2)

QUEUES = """
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: team-a}
spec: {weight: 1, reclaimable: true, deserved: {nvidia.com/gpu: 8}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: team-b}
spec: {weight: 1, reclaimable: true, deserved: {nvidia.com/gpu: 8}}
"""


def job_yaml(name, queue, priority, replicas, min_available, marks):
    """Workers that log their SIGTERM to `marks` and take a second to checkpoint."""
    script = (f"trap 'echo $(POD_NAME) term >> {marks}; sleep 1; exit 0' TERM; "
              "while true; do sleep 0.1; done")
    pod_name = {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}
    return worker_job(
        name, script, replicas, env=[pod_name],
        spec={"queue": queue, "minAvailable": min_available, "priorityClassName": priority},
        # as in Volcano, a task's own minimum defaults to all its replicas
        task={"minAvailable": min_available})


def running(c, job):
    return [p for p in c.pods(job) if p["status"].get("phase") == "Running" and
            "deletionTimestamp" not in p["metadata"]]


class MarkWatch(threading.Thread):
    """Records the pods seen with the DisruptionTarget condition."""

    def __init__(self, c):
        super().__init__(daemon=True)
        self.c, self.stop, self.marked = c, threading.Event(), {}

    def run(self):
        while not self.stop.is_set():
            for p in self.c.pods():
                for cond in p["status"].get("conditions", []):
                    if cond.get("type") == "DisruptionTarget" and cond.get("status") == "True":
                        self.marked[p["metadata"]["name"]] = cond.get("reason")
            self.stop.wait(0.05)


def preempt(c, marks):
    # 16 GPUs: the 4 the gang needs stay under the 30%-of-the-cluster cap per cycle, and under
    # half of what low requested.
    c.apply(job_yaml("low", "default", "low", 16, 8, marks))
    c.wait(lambda: len(running(c, "low")) == 16, "the low-priority job on all 16 GPUs")
    watch = MarkWatch(c)
    watch.start()
    c.apply(job_yaml("high", "default", "high", 4, 4, marks))
    c.wait(lambda: len(running(c, "high")) == 4, "the high-priority gang running", timeout=60)
    watch.stop.set()
    watch.join()
    terms = open(marks).read().split("\n")
    victims = {line.split()[0] for line in terms if line.endswith(" term")}
    check(len(victims) == 4, f"victims that got SIGTERM: {sorted(victims)} (want 4)")
    check(all(v.startswith("low-") for v in victims), f"a victim is not low's: {victims}")
    check(set(watch.marked) >= victims and set(watch.marked.values()) == {"Preempted"},
          f"victims marked {watch.marked}, SIGTERMed {victims}")
    # The scheduler's Volcano metrics counted the preemption; its output parses (promtool exit 3
    # only lists lint notes on Volcano's own names: milliseconds, camelCase OnSession).
    text = c.metrics("scheduler")
    attempts = re.search(r"^volcano_total_preemption_attempts (\S+)$", text, re.M)
    check(attempts and float(attempts.group(1)) >= 1, "no preemption attempt in the metrics")
    lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                          text=True)
    check(lint.returncode in (0, 3), f"promtool check metrics: {lint.stdout}{lint.stderr}")
    # The victims are requeued: low keeps its 4 gang members running and 4 new pending pods.
    c.wait(lambda: len(c.pods("low")) == 16 and len(running(c, "low")) == 12,
           "low requeued with 12 running and 4 pending")
    pending = [p for p in c.pods("low") if not p["spec"].get("nodeName")]
    check(len(pending) == 4, f"{len(pending)} pending low pods, want 4")
    c.kubectl("delete", "vcjob", "low", "high", "--wait=false")
    c.wait(lambda: not c.pods(), "the preempt test's pods gone")


def reclaim(c, marks):
    c.apply(QUEUES)
    c.apply(job_yaml("greedy", "team-a", "normal", 16, 1, marks))
    c.wait(lambda: len(running(c, "greedy")) == 16, "team-a using all 16 GPUs")
    c.apply(job_yaml("owed", "team-b", "normal", 4, 4, marks))
    c.wait(lambda: len(running(c, "owed")) == 4, "team-b's job running after reclaim",
           timeout=60)
    check(len(running(c, "greedy")) == 12, "team-a did not give back the 4 GPUs team-b needs")


def main():
    etna = sys.argv[1]
    with Cluster(etna, PROFILE, ["h100-0", "h100-1"]) as c:
        preempt(c, os.path.join(c.work, "preempt-marks"))
        reclaim(c, os.path.join(c.work, "reclaim-marks"))
    print("PASS")


if __name__ == "__main__":
    main()
