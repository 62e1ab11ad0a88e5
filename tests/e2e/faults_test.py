#!/usr/bin/python3
"""End to end under faults, on real `etna` processes:
  - scheduler and controllers SIGKILLed and restarted mid-run: every job still completes with
    exactly its pods, and no GPU is ever held by two live pods;
  - an agent SIGKILLed and restarted while its container runs: the container is adopted, not
    launched a second time, and still gets SIGTERM when its pod is deleted;
  - an agent SIGKILLed for good: its node turns NotReady within the lease period, its pods fail
    with reason NodeLost, and the job's PodFailed -> RestartJob policy runs them elsewhere.

Usage: faults_test.py ETNA_BINARY
"""
import http.client
import os
import signal
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, h100_profile, worker_job  # noqa: E402

PROFILE = h100_profile(2)

def job_yaml(name, replicas, gpus, script):
    return worker_job(name, script, replicas, gpus, grace=5, spec={
        "minAvailable": replicas, "policies": [{"event": "PodFailed", "action": "RestartJob"}]})


def live(pod):
    return pod["status"].get("phase") not in ("Succeeded", "Failed") and \
        "deletionTimestamp" not in pod["metadata"]


class GpuWatch(threading.Thread):
    """Polls the pods and records any GPU held by two live pods on one node."""

    def __init__(self, c):
        super().__init__(daemon=True)
        self.c, self.stop, self.clashes, self.polls = c, threading.Event(), [], 0

    def run(self):
        while not self.stop.is_set():
            held = {}
            try:
                pods = self.c.items("/api/v1/pods")
            except (OSError, http.client.HTTPException):
                pods = []  # the server went away mid-request (a test killing it): poll again
            for p in pods:
                node = p["spec"].get("nodeName")
                ids = p["metadata"].get("annotations", {}).get("etna.io/gpu-ids", "")
                if not node or not live(p):
                    continue
                for i in filter(None, ids.split(",")):
                    other = held.setdefault((node, i), p["metadata"]["name"])
                    if other != p["metadata"]["name"]:
                        self.clashes.append((node, i, other, p["metadata"]["name"]))
            self.polls += 1
            self.stop.wait(0.05)


def restarts_lose_nothing(c):
    watch = GpuWatch(c)
    watch.start()
    names = [f"batch-{i}" for i in range(6)]
    for n in names:
        c.apply(job_yaml(n, 2, 2, "echo run; sleep 2"))
    c.wait(lambda: any(p["spec"].get("nodeName") for p in c.pods()), "a first bind")
    c.stop("scheduler", signal.SIGKILL)
    c.stop("controllers", signal.SIGKILL)
    c.start("scheduler", ["scheduler", "--kubeconfig", c.kubeconfig, "--period", c.period])
    c.wait(lambda: any(p["status"].get("phase") == "Succeeded" for p in c.pods()),
           "a first pod to finish")
    c.start("controllers", ["controllers", "--kubeconfig", c.kubeconfig,
                            "--lease-grace-seconds", "1"])
    for n in names:
        c.wait(lambda n=n: c.job_phase(n) == "Completed", f"{n} Completed", timeout=120)
        pods = c.pods(n)
        check(len(pods) == 2, f"{n} has {len(pods)} pods, not 2")
        check(all(p["status"].get("phase") == "Succeeded" for p in pods), f"{n}: not all ok")
    watch.stop.set()
    watch.join()
    check(watch.polls > 0, "the GPU watch never ran")
    check(not watch.clashes, f"GPUs held twice: {watch.clashes[:5]}")
    for n in names:
        c.kubectl("delete", "vcjob", n, "--wait=false")


def agent_restart_adopts(c, marks):
    mark = os.path.join(marks, "adopted")
    c.apply(job_yaml("steady", 1, 1,
                     f"echo started >> {mark}; trap 'echo term >> {mark}; exit 0' TERM; "
                     "while true; do sleep 0.1; done"))
    pod = c.wait(lambda: next((p for p in c.pods("steady")
                               if p["status"].get("phase") == "Running"), None),
                 "steady running")
    node = pod["spec"]["nodeName"]
    c.stop(f"agent-{node}", signal.SIGKILL)
    c.start_agent(node)
    lease = f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{node}"
    before = c.get(lease)["spec"]["renewTime"]
    c.wait(lambda: c.get(lease)["spec"]["renewTime"] != before, "the restarted agent's lease")
    c.kubectl("delete", "vcjob", "steady", "--wait=false")
    c.wait(lambda: not c.pods("steady"), "steady's pod gone")
    c.wait(lambda: "term" in open(mark).read(), "the adopted container to get SIGTERM")
    lines = open(mark).read().split()
    check(lines.count("started") == 1, f"the container was launched {lines.count('started')} "
          "times across the agent restart")


def lost_node_fails_over(c):
    c.apply(job_yaml("resilient", 1, 1, "sleep 600"))
    pod = c.wait(lambda: next((p for p in c.pods("resilient")
                               if p["status"].get("phase") == "Running"), None),
                 "resilient running")
    lost = pod["spec"]["nodeName"]
    other = next(n for n in c.nodes if n != lost)
    c.stop(f"agent-{lost}", signal.SIGKILL)
    c.wait(lambda: not c.node_ready(lost), f"{lost} NotReady", timeout=30)
    c.wait(lambda: c.job("resilient")["status"].get("retryCount", 0) >= 1,
           "the RestartJob policy after NodeLost", timeout=30)
    moved = c.wait(lambda: next((p for p in c.pods("resilient")
                                 if p["spec"].get("nodeName") == other and
                                 p["status"].get("phase") == "Running"), None),
                   f"resilient running again on {other}", timeout=60)
    check(moved["metadata"]["uid"] != pod["metadata"]["uid"], "the lost pod was not replaced")


def main():
    etna = sys.argv[1]
    with Cluster(etna, PROFILE, ["h100-0", "h100-1"], lease_seconds=2) as c:
        marks = os.path.join(c.work, "marks")
        os.makedirs(marks)
        restarts_lose_nothing(c)
        agent_restart_adopts(c, marks)
        lost_node_fails_over(c)
    print("PASS")


if __name__ == "__main__":
    main()
