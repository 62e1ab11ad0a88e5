#!/usr/bin/python3
"""End to end: the seed's queues and its training job (chief + 3 workers, gang of 4, pytorch
plugin) on real `etna` processes. None start while only three GPUs are free in the cluster; the
four then start together on one node inside one NVLink domain (not on the two T4 nodes), they see RANK/WORLD_SIZE/MASTER_ADDR,
the job completes when all exit 0 and its TTL removes it; PodFailed -> RestartJob honours
maxRetry.

Usage: training_test.py ETNA_BINARY SEED_DIR EXAMPLES_DIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, worker_job  # noqa: E402

PROFILE = """
nodeGroups:
- name: h100
  count: 1
  cpu: "128"
  memory: 1Ti
  switch: sw-a
  gpus: {model: NVIDIA-H100-80GB-HBM3, count: 8, memoryMiB: 81559, nvlink: nvswitch}
- name: t4
  count: 2
  cpu: "64"
  memory: 256Gi
  switch: sw-b
  gpus: {model: Tesla-T4, count: 2, memoryMiB: 15360}
"""

BLOCKER = """
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: blocker
  namespace: default
  labels: {team: algorithm, env: production}  # the queue's QueueBinding admits only these
spec:
  queue: production-training
  priority: 1000
  minAvailable: 3
  tasks:
  - name: hold
    replicas: 1
    template:
      metadata:
        annotations: {volcano.sh/preemptable: "false"}
      spec:
        restartPolicy: Never
        nodeSelector: {kubernetes.io/hostname: h100-0}
        containers:
        - name: c
          image: busybox
          command: ["sh", "-c", "sleep 600"]
          resources:
            requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "5"}
            limits: {nvidia.com/gpu: "5"}
  - name: hold-t4
    replicas: 2
    template:
      metadata:
        annotations: {volcano.sh/preemptable: "false"}
      spec:
        restartPolicy: Never
        nodeSelector: {nvidia.com/gpu.model: Tesla-T4}
        containers:
        - name: c
          image: busybox
          command: ["sh", "-c", "sleep 600"]
          resources:
            requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "2"}
            limits: {nvidia.com/gpu: "2"}
"""

FLAKY = worker_job("flaky", "echo attempt; exit 1", replicas=2, spec={
    "queue": "experiment-training", "minAvailable": 2, "maxRetry": 2,
    "policies": [{"event": "PodFailed", "action": "RestartJob"}]})


def gpu_ids(pod):
    ids = pod["metadata"].get("annotations", {}).get("etna.io/gpu-ids", "")
    return [int(i) for i in ids.split(",") if i]


def podgroup_of(c, job):
    for pg in c.items("/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups"):
        for ref in pg["metadata"].get("ownerReferences", []):
            if ref.get("kind") == "Job" and ref.get("name") == job:
                return pg
    return None


def unschedulable(pg):
    for cond in (pg or {}).get("status", {}).get("conditions", []):
        if cond.get("type") == "Unschedulable" and cond.get("status") == "True":
            return cond
    return None


def gang_waits_then_starts_together(c, examples):
    c.apply(BLOCKER)
    c.wait(lambda: sum(p["status"].get("phase") == "Running" for p in c.pods("blocker")) == 3,
           "the blocker holding 5 H100 GPUs and both T4 nodes")
    job_yaml = open(os.path.join(examples, "seed-training-runnable.yaml")).read()
    job_yaml = job_yaml.replace("${EPOCH_SECONDS:-2}", "1").replace("${EPOCHS:-5}", "3")
    job_yaml = job_yaml.replace("ttlSeconds: 86400", "ttlSeconds: 3")
    c.apply(job_yaml)
    name = "bert-finetune-training"
    c.wait(lambda: len(c.pods(name)) == 4, "the job's four pods")
    cond = c.wait(lambda: unschedulable(podgroup_of(c, name)),
                  "the gang to be reported unschedulable while only three GPUs are free")
    print("while blocked:", cond.get("reason"), "-", cond.get("message"))
    check(all(not p["spec"].get("nodeName") for p in c.pods(name)),
          "a member of the gang was bound while only three fit")

    c.kubectl("delete", "vcjob", "blocker", "--wait=false")
    pods = c.wait(lambda: (lambda ps: ps if len(ps) == 4 and all(
        p["spec"].get("nodeName") for p in ps) else None)(c.pods(name)),
        "all four members bound once the blocker left")
    nodes = {p["spec"]["nodeName"] for p in pods}
    # Both T4 nodes are free again too, but only h100-0 holds the gang in one NVLink domain.
    check(nodes == {"h100-0"}, f"the gang spans {nodes}")
    ids = [i for p in pods for i in gpu_ids(p)]
    check(len(ids) == 4 and len(set(ids)) == 4, f"GPU ids {ids} are not four distinct GPUs")
    gpus = json.loads(c.node("h100-0")["metadata"]["annotations"]["etna.io/gpus"])
    domains = {g["nvlinkDomain"] for g in gpus if g["index"] in ids}
    check(len(domains) == 1, f"GPUs {ids} span NVLink domains {domains}")

    c.wait(lambda: c.job_phase(name) == "Completed", "the training job Completed", timeout=90)
    ranks = set()
    pods = c.pods(name)
    chief = next(p for p in pods if p["metadata"]["name"].endswith("-chief-0"))
    # Host processes have no /etc/hosts of their own: the agent puts the chief's address, not
    # its name, into MASTER_ADDR (docs/agent.md, "Names that resolve").
    chief_ip = chief["status"].get("podIP")
    check(chief_ip, f"the chief has no podIP: {chief['status']}")
    for p in pods:
        out = c.log(p["metadata"]["name"])
        print(p["metadata"]["name"], "->", out.splitlines()[0] if out else "(no log)")
        check("world_size=4" in out, f"{p['metadata']['name']}: no WORLD_SIZE=4 in {out!r}")
        check(f"master={chief_ip}:" in out,
              f"{p['metadata']['name']}: MASTER_ADDR is not the chief's {chief_ip} in {out!r}")
        ranks.add(out.split("rank=")[1].split()[0])
    check(ranks == {"0", "1", "2", "3"}, f"ranks {ranks}")
    c.wait(lambda: c.job(name) is None and not c.pods(name), "the TTL to remove the job")


def restart_job_honours_max_retry(c):
    c.apply(FLAKY)
    c.wait(lambda: c.job_phase("flaky") == "Failed", "flaky to fail after its retries",
           timeout=90)
    status = c.job("flaky")["status"]
    check(status.get("retryCount") == 2, f"retryCount {status.get('retryCount')} != maxRetry 2")


def main():
    etna, seed, examples = sys.argv[1], sys.argv[2], sys.argv[3]
    with Cluster(etna, PROFILE, ["h100-0", "t4-0", "t4-1"]) as c:
        c.kubectl("apply", "-f", os.path.join(seed, "volcano-queues.yaml"))
        gang_waits_then_starts_together(c, examples)
        restart_job_honours_max_retry(c)
    print("PASS")


if __name__ == "__main__":
    main()
