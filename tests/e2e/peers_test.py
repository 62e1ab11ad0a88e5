#!/usr/bin/python3
"""End to end: the seed's training job finds its peers across two nodes, in containers.

The seed's `bert-finetune-training` Job (chief + 3 workers, one GPU each, gang of 4) runs on two
nodes of two GPUs (`etna agent --runtime container`, runc, an image served by a local
registry), so the chief and its workers are on different nodes whose InternalIPs differ
(127.0.0.2, 127.0.0.3). The Job keeps the seed's env (`CHIEF_SERVICE` = the chief's pod name),
affinity and tolerations and gains the pytorch plugin (`MASTER_ADDR` = "<chief>.<job>", and the
svc plugin's headless Service, which admission adds). Its commands stand in for torchrun's rendezvous: the chief
listens on 29500; each worker connects to `$MASTER_ADDR:29500` and to `$CHIEF_SERVICE:29500`
by name, which only the pod's /etc/hosts resolves. Checks: the job Completes, the chief heard
every worker's rank by both names, each worker's /etc/hosts gives the chief's node address,
and the svc plugin's Service has Endpoints with the four pods.

Usage: peers_test.py ETNA_BINARY SEED_DIR
"""
import json
import os
import shutil
import socket
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, worker_job  # noqa: E402
from containers import make_gpu_devices  # noqa: E402
from registry import Registry  # noqa: E402

NODE_IPS = {"h100-0": "127.0.0.2", "h100-1": "127.0.0.3"}

PROFILE = """
nodeGroups:
- name: h100
  count: 2
  cpu: "16"
  memory: 64Gi
  switch: sw-a
  gpus: {model: NVIDIA-H100-80GB-HBM3, count: 2, memoryMiB: 81559, nvlink: nvswitch}
"""

# After hearing every rank the chief waits for the test (port 29501), which first reads the
# svc plugin's Endpoints while the chief is still running.
# The chief answers "ok" to each message it has read and the worker sends again until it gets
# that answer: a connection queued while nc -l closes its listener is reset, and nothing
# else would tell the worker its message was lost. /heard holds each distinct message once.
CHIEF = ("touch /heard; until [ \"$(grep -c . /heard)\" -ge 6 ]; do "
         "nc -l -p 29500 -e sh -c 'read line; grep -qxF \"$line\" /heard || "
         "echo \"$line\" >> /heard; echo \"$line\" >&2; echo ok'; done; "
         "echo chief: heard all; nc -l -p 29501 </dev/null")
# A peer bound a moment after this pod starts is in /etc/hosts within a second or so.
WORKER = ("until grep chief /etc/hosts; do sleep 0.3; done; "
          "send() { until echo \"rank $RANK via $1\" | nc $2 29500 | grep -q ok; do sleep 0.3; "
          "done; }; send MASTER_ADDR $MASTER_ADDR; send CHIEF_SERVICE $CHIEF_SERVICE; "
          "echo worker $RANK done")


# Team-a's ServiceAccounts may read team-a's Volcano Jobs, nothing else.
RULES = """
- group: system:serviceaccounts:team-a
  namespaces: [team-a]
  resources: [jobs.batch.volcano.sh]
  access: read
"""

# The seed's client (python3-kubernetes) inside a pod, with in-cluster config.
IN_CLUSTER = """
from kubernetes import client, config
config.load_incluster_config()
api = client.CustomObjectsApi()
jobs = api.list_namespaced_custom_object("batch.volcano.sh", "v1alpha1", "team-a", "jobs")
print("team-a jobs:", sorted(j["metadata"]["name"] for j in jobs["items"]))
try:
    api.list_namespaced_custom_object("batch.volcano.sh", "v1alpha1", "default", "jobs")
    print("default jobs: allowed")
except client.exceptions.ApiException as e:
    print("default jobs:", e.status)
"""


def in_cluster_pod(image):
    """Runs IN_CLUSTER with the host's python3 and its packages (hostPath /usr, read-only)."""
    mounts = [("usr", "/usr", "/usr"), ("lib", "/usr/lib", "/lib"),
              ("lib64", "/usr/lib64", "/lib64")]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "in-cluster", "namespace": "team-a"},
            "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 2,
                     "containers": [{"name": "client", "image": image,
                                     "command": ["/usr/bin/python3", "-c", IN_CLUSTER],
                                     "volumeMounts": [{"name": n, "mountPath": m,
                                                       "readOnly": True}
                                                      for n, _, m in mounts]}],
                     "volumes": [{"name": n, "hostPath": {"path": h}} for n, h, _ in mounts]}}


def check_in_cluster(c, image):
    sa = c.get("/api/v1/namespaces/team-a/serviceaccounts/default")
    check(sa is not None, "namespace team-a has no default ServiceAccount")
    job = json.loads(worker_job("team-job", "true", gpus=0))
    job["metadata"]["namespace"] = "team-a"
    job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["image"] = image
    c.apply(json.dumps(job))
    path = os.path.join(c.work, "in-cluster.json")
    with open(path, "w") as f:
        json.dump(in_cluster_pod(image), f)
    c.kubectl("apply", "-f", path)
    c.wait(lambda: (c.get("/api/v1/namespaces/team-a/pods/in-cluster") or {}).get(
        "status", {}).get("phase") in ("Succeeded", "Failed"), "the in-cluster client to end",
        timeout=120)
    log = c.log("in-cluster", ns="team-a")
    print("--- in-cluster\n" + log.rstrip())
    check("team-a jobs: ['team-job']" in log, f"the client did not list team-a's jobs: {log!r}")
    check("default jobs: 403" in log, f"another namespace's jobs were not refused: {log!r}")


def seed_job(seed, image):
    """The seed's training Job with a runnable image and commands, small requests, no PVCs."""
    docs = yaml.safe_load_all(open(os.path.join(seed, "training-job.yaml")))
    job = next(d for d in docs if d and d.get("kind") == "Job")
    # QueueUnderused -> KillJob is neither a Volcano event nor an action (seed NOTES.md).
    job["spec"]["policies"] = [p for p in job["spec"]["policies"]
                               if p["event"] != "QueueUnderused"]
    job["spec"]["plugins"] = {"pytorch": ["--master=chief", "--worker=worker", "--port=29500"]}
    for task in job["spec"]["tasks"]:
        spec = task["template"]["spec"]
        spec.pop("volumes", None)
        spec["terminationGracePeriodSeconds"] = 2
        for c in spec["containers"]:
            c["image"] = image
            c["command"] = ["sh", "-c", CHIEF if task["name"] == "chief" else WORKER]
            c["resources"] = {"requests": {"cpu": "100m", "memory": "64Mi",
                                           "nvidia.com/gpu": "1"},
                              "limits": {"memory": "64Mi", "nvidia.com/gpu": "1"}}
            c.pop("volumeMounts", None)
            c.pop("livenessProbe", None)  # nvidia-smi is not in the test image
    return job


def main():
    etna, seed = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="etna-peers-")
    try:
        gpu_dev = make_gpu_devices(work, count=2)
        args = ["--runtime", "container", "--gpu-device-dir", gpu_dev]
        with Registry(work) as reg:
            image = reg.push_busybox("tools/busybox:1", os.path.join(work, "image"))
            rules = os.path.join(work, "rules.yaml")
            with open(rules, "w") as f:
                f.write(RULES)
            with Cluster(etna, PROFILE, list(NODE_IPS), agent_args=args, node_ips=NODE_IPS,
                         server_args=["--authorization-file", rules]) as c:
                c.kubectl("apply", "-f", os.path.join(seed, "volcano-queues.yaml"))
                path = os.path.join(c.work, "job.json")
                with open(path, "w") as f:
                    json.dump(seed_job(seed, image), f)
                c.kubectl("apply", "-f", path)
                try:
                    check_peers(c)
                    c.kubectl("create", "namespace", "team-a")
                    check_in_cluster(c, image)
                except AssertionError:
                    show_pods(c)
                    raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("PASS peers_test")


def show_pods(c):
    for p in c.pods():
        name = p["metadata"]["name"]
        print(f"--- pod {name} on {p['spec'].get('nodeName')}: {p['status'].get('phase')} "
              f"{json.dumps(p['status'].get('containerStatuses'))}", file=sys.stderr)
        print(c.log(name).rstrip(), file=sys.stderr)


def chief_endpoint(c, name):
    """The svc plugin's Endpoints address of the chief, once it is there."""
    endpoints = c.get(f"/api/v1/namespaces/default/endpoints/{name}") or {}
    for subset in endpoints.get("subsets", []):
        for a in subset.get("addresses", []):
            if a.get("hostname") == f"{name}-chief-0":
                return a
    return None


def check_peers(c):
    name = "bert-finetune-training"
    c.wait(lambda: "chief: heard all" in c.log(f"{name}-chief-0"),
           "the chief to hear every worker", timeout=180)
    pods = c.pods(name)
    check({p["spec"]["nodeName"] for p in pods} == set(NODE_IPS),
          f"the gang did not span both nodes: {[p['spec']['nodeName'] for p in pods]}")
    chief = next(p for p in pods if p["metadata"]["name"] == f"{name}-chief-0")
    chief_ip = NODE_IPS[chief["spec"]["nodeName"]]
    check(chief["status"].get("podIP") == chief_ip,
          f"the chief's podIP {chief['status'].get('podIP')} is not its node's {chief_ip}")
    service = c.get(f"/api/v1/namespaces/default/services/{name}")
    check(service["spec"]["clusterIP"] == "None", f"the svc plugin's Service: {service}")
    address = c.wait(lambda: chief_endpoint(c, name), "the chief in the Service's Endpoints")
    check(address["ip"] == chief_ip, f"the chief's endpoint {address}")
    socket.create_connection((chief_ip, 29501), timeout=10).close()  # lets the chief end

    c.wait(lambda: c.job_phase(name) in ("Completed", "Failed"), "the training job to end",
           timeout=120)
    logs = {p["metadata"]["name"]: c.log(p["metadata"]["name"]) for p in pods}
    for p in pods:
        print(f"--- {p['metadata']['name']} on {p['spec']['nodeName']}")
        print(logs[p["metadata"]["name"]].rstrip())
    check(c.job_phase(name) == "Completed", f"the job ended {c.job_phase(name)}")
    heard = logs[chief["metadata"]["name"]]
    for rank in (1, 2, 3):
        for via in ("MASTER_ADDR", "CHIEF_SERVICE"):
            check(f"rank {rank} via {via}" in heard,
                  f"the chief never heard rank {rank} via {via}")
    for p in pods:
        if p is chief:
            continue
        log = logs[p["metadata"]["name"]]
        line = next((x for x in log.splitlines() if f"{name}-chief-0.{name} " in x + " "), "")
        check(line.split()[:1] == [chief_ip],
              f"{p['metadata']['name']}'s /etc/hosts gives the chief as {line!r}")


if __name__ == "__main__":
    main()
