"""The soak's jobs: Volcano Jobs of every shape, drawn from a seeded random generator.

Shapes: one pod of 1, 2, 4 or 8 GPUs; a gang of 2-4 pods (minAvailable = all); an elastic job
of 3-6 one-GPU pods of which 2 make the gang; a multi-task gang (a master and 2-3 workers of 2
GPUs); a gang of two whole nodes. Runs are short (3-15 s) or long (60-150 s, with a SIGTERM
trap that takes a second to checkpoint); a few short ones exit 1. Priorities low, normal and
high (the built-in PriorityClasses) make the scheduler preempt; three queues make it reclaim.
Some jobs restart on a failed or evicted pod, some are removed by ttlSecondsAfterFinished.

Every pod carries SOAK_RUN, SOAK_POD_UID and SOAK_NODE in its environment, so the soak can find
its processes under /proc (probes.py)."""
import json

QUEUES = ["default", "soak-a", "soak-b"]

QUEUES_YAML = """
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: soak-a}
spec: {weight: 2, reclaimable: true}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: soak-b}
spec: {weight: 1, reclaimable: true}
"""

SHAPES = ["single", "gang", "elastic", "multi-task", "two-nodes"]


def _env(run_id):
    def field(name, path):
        return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}
    return [{"name": "SOAK_RUN", "value": run_id}, field("SOAK_POD_UID", "metadata.uid"),
            field("SOAK_NODE", "spec.nodeName")]


def _task(name, replicas, gpus, script, run_id, min_available=None):
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c", script],
                 "env": _env(run_id),
                 "resources": {"requests": {"cpu": "1", "memory": "1Gi",
                                            "nvidia.com/gpu": str(gpus)},
                               "limits": {"nvidia.com/gpu": str(gpus)}}}
    task = {"name": name, "replicas": replicas,
            "template": {"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 5,
                                  "containers": [container]}}}
    if min_available is not None:
        task["minAvailable"] = min_available
    return task


def _script(rng):
    if rng.random() < 0.3:
        seconds = rng.randint(60, 150)
        return "long", (f"trap 'sleep 1; exit 0' TERM; sleep {seconds} & wait $!"), seconds
    seconds = rng.randint(3, 15)
    if rng.random() < 0.05:
        return "short-fail", f"sleep {seconds}; exit 1", seconds
    return "short", f"sleep {seconds}", seconds


def make_job(rng, name, run_id, max_gpus_per_node=8):
    """A random Job: (its JSON body, a one-word description of it)."""
    shape = rng.choice(SHAPES)
    run, script, _ = _script(rng)
    if shape == "single":
        gpus = rng.choice([g for g in (1, 2, 4, 8) if g <= max_gpus_per_node])
        tasks, min_available = [_task("worker", 1, gpus, script, run_id)], 1
    elif shape == "gang":
        replicas = rng.randint(2, 4)
        gpus = rng.choice([1, 2, 4])
        tasks, min_available = [_task("worker", replicas, gpus, script, run_id)], replicas
    elif shape == "elastic":
        replicas = rng.randint(3, 6)
        tasks = [_task("worker", replicas, 1, script, run_id, min_available=2)]
        min_available = 2
    elif shape == "multi-task":
        workers = rng.randint(2, 3)
        tasks = [_task("master", 1, 1, script, run_id),
                 _task("worker", workers, 2, script, run_id)]
        min_available = 1 + workers
    else:  # two-nodes
        tasks, min_available = [_task("worker", 2, max_gpus_per_node, script, run_id)], 2
    priority = rng.choices(["low", "normal", "high"], weights=[45, 35, 20])[0]
    spec = {"queue": rng.choice(QUEUES), "minAvailable": min_available,
            "priorityClassName": priority, "schedulerName": "volcano", "tasks": tasks}
    if min_available > 1 and rng.random() < 0.5:
        spec["policies"] = [{"event": "PodEvicted", "action": "RestartJob"},
                            {"event": "PodFailed", "action": "RestartJob"}]
    if rng.random() < 0.5:
        spec["ttlSecondsAfterFinished"] = 20
    body = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}
    return body, f"{shape}/{run}/{priority}/{spec['queue']}"


if __name__ == "__main__":
    import random
    print(json.dumps(make_job(random.Random(1), "example", "run")[0], indent=1))
