#!/usr/bin/python3
"""End to end: the seed's inference Deployment (examples/jobs/seed-inference-runnable.yaml) in
`etna dev`, driven with kubectl as a user would: its three replicas run on GPUs and
`kubectl rollout status` returns; `kubectl scale` resizes it; a rolling update of its env keeps
at least replicas - maxUnavailable replicas ready at every moment observed; `rollout history`,
`undo`, `pause`/`resume` and `restart` work; a `kubectl run` pod that names no scheduler runs;
replicas spread over nodes by topologySpreadConstraints and by pod anti-affinity.

Usage: inference_test.py ETNA_BINARY SEED_DIR EXAMPLES_DIR
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dev import Dev  # noqa: E402

NS = "inference"
DEPLOY = "deployment/bert-inference-service"


def main():
    etna, seed, examples = sys.argv[1:4]
    with Dev(etna, prefix="etna-inference-") as dev:
        k = dev.k

        def pods():
            items = json.loads(k("get", "pods", "-n", NS, "-l", "app=bert-inference",
                                 "-o", "json"))["items"]
            return [p for p in items if "deletionTimestamp" not in p["metadata"]
                    and p["status"].get("phase") not in ("Succeeded", "Failed")]

        def ready(p):
            return any(c["type"] == "Ready" and c["status"] == "True"
                       for c in p["status"].get("conditions", []))

        def deployment():
            return json.loads(k("get", DEPLOY, "-n", NS, "-o", "json"))

        def wait(predicate, what, timeout=90):
            end = time.monotonic() + timeout
            while not predicate():
                assert time.monotonic() < end, f"timed out waiting for {what}"
                time.sleep(0.2)

        k("apply", "-f", os.path.join(seed, "volcano-queues.yaml"))
        k("apply", "-f", dev.runnable_inference(examples))
        # The steps below size the Deployment by hand: its autoscaler would resize it back
        # (autoscale_test.py runs the HPA).
        k("delete", "hpa", "bert-inference-hpa", "-n", NS)
        k("rollout", "status", DEPLOY, "-n", NS, "--timeout=120s", timeout=150)
        running = pods()
        assert len(running) == 3, [p["metadata"]["name"] for p in running]
        for p in running:
            assert p["status"]["phase"] == "Running" and ready(p), p["status"]
            assert p["metadata"]["annotations"].get("etna.io/gpu-ids"), p["metadata"]
        rs = json.loads(k("get", "rs", "-n", NS, "-o", "json"))["items"]
        assert len(rs) == 1, rs
        hash_ = rs[0]["metadata"]["labels"]["pod-template-hash"]
        assert all(p["metadata"]["labels"]["pod-template-hash"] == hash_ for p in running)
        print("rolled out: 3 replicas on GPUs", flush=True)

        k("scale", DEPLOY, "-n", NS, "--replicas=4")
        k("rollout", "status", DEPLOY, "-n", NS, "--timeout=90s", timeout=120)
        assert len(pods()) == 4
        scale = json.loads(k("get", "--raw",
                             f"/apis/apps/v1/namespaces/{NS}/deployments/"
                             "bert-inference-service/scale"))
        assert scale["spec"]["replicas"] == 4 and scale["status"]["selector"] == \
            "app=bert-inference", scale

        # A rolling update (maxUnavailable 25 % of 4 = 1): never fewer than 3 ready.
        k("set", "env", DEPLOY, "-n", NS, "MAX_BATCH_SIZE=64")
        least = 4
        end = time.monotonic() + 120
        while True:
            now = pods()
            least = min(least, sum(1 for p in now if ready(p)))
            d = deployment()
            s = d["status"]
            if (s.get("observedGeneration", 0) >= d["metadata"]["generation"]
                    and s.get("updatedReplicas") == 4 and s.get("replicas") == 4
                    and s.get("availableReplicas") == 4):
                break
            assert time.monotonic() < end, f"rolling update did not finish: {s}"
            time.sleep(0.1)
        assert least >= 3, f"only {least} replicas were ready during the rolling update"
        k("rollout", "status", DEPLOY, "-n", NS, "--timeout=60s", timeout=90)
        envs = {e["name"]: e.get("value") for p in pods() for e in p["spec"]["containers"][0]["env"]}
        assert envs["MAX_BATCH_SIZE"] == "64", envs
        history = k("rollout", "history", DEPLOY, "-n", NS)
        assert "1 " in history and "2 " in history, history
        print(f"rolling update: at least {least} of 4 ready throughout", flush=True)

        k("rollout", "undo", DEPLOY, "-n", NS)
        k("rollout", "status", DEPLOY, "-n", NS, "--timeout=90s", timeout=120)
        template_env = {e["name"]: e.get("value") for e in
                        deployment()["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert template_env["MAX_BATCH_SIZE"] == "32", template_env
        wait(lambda: len(pods()) == 4 and all(
            {e["name"]: e.get("value") for e in p["spec"]["containers"][0]["env"]}["MAX_BATCH_SIZE"]
            == "32" for p in pods()), "the undone template's pods")
        rss = json.loads(k("get", "rs", "-n", NS, "-o", "json"))["items"]
        assert len(rss) == 2, json.dumps([r["spec"]["template"] for r in rss], indent=1) + \
            json.dumps(deployment()["spec"]["template"], indent=1)
        assert deployment()["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"

        k("rollout", "pause", DEPLOY, "-n", NS)
        k("set", "env", DEPLOY, "-n", NS, "MAX_BATCH_SIZE=16")
        wait(lambda: any(c["reason"] == "DeploymentPaused"
                         for c in deployment()["status"].get("conditions", [])), "paused")
        assert len(json.loads(k("get", "rs", "-n", NS, "-o", "json"))["items"]) == 2
        k("rollout", "resume", DEPLOY, "-n", NS)
        k("rollout", "status", DEPLOY, "-n", NS, "--timeout=90s", timeout=120)
        k("rollout", "restart", DEPLOY, "-n", NS)
        k("rollout", "status", DEPLOY, "-n", NS, "--timeout=90s", timeout=120)
        assert len(json.loads(k("get", "rs", "-n", NS, "-o", "json"))["items"]) == 4
        k("scale", DEPLOY, "-n", NS, "--replicas=2")
        wait(lambda: len(pods()) == 2, "scale-down to 2")
        print("undo, pause/resume, restart and scale-down", flush=True)

        # A pod that names no scheduler (default-scheduler) is scheduled.
        k("run", "plain", "-n", "default", "--image=busybox", "--restart=Never", "--",
          "sleep", "30")
        wait(lambda: json.loads(k("get", "pod", "plain", "-n", "default", "-o", "json"))
             ["spec"].get("nodeName"), "the default-scheduler pod bound", timeout=30)

        # A pod whose scheduler is not running is told so.
        k("run", "lost", "-n", "default", "--image=busybox", "--restart=Never",
          "--overrides", '{"spec": {"schedulerName": "kai-scheduler"}}', "--", "sleep", "30")

        def lost_warning():
            events = json.loads(k("get", "events", "-n", "default", "--field-selector",
                                  "involvedObject.name=lost", "-o", "json"))["items"]
            return [e["message"] for e in events if e["reason"] == "FailedScheduling"]
        wait(lost_warning, "the Warning for a pod no scheduler serves", timeout=45)
        assert 'no running scheduler serves schedulerName "kai-scheduler"' in lost_warning()[0]
        print("a pod no running scheduler serves: warned", flush=True)

        # Replicas spread across nodes, by topologySpreadConstraints and by pod anti-affinity.
        def spread_deployment(name, placement):
            pod_spec = {"containers": [{"name": "c", "image": "busybox",
                                        "command": ["sleep", "3600"],
                                        "resources": {"requests": {"cpu": "100m"}}}]}
            pod_spec.update(placement(name))
            obj = {"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": name, "namespace": "default"},
                   "spec": {"replicas": 4, "selector": {"matchLabels": {"app": name}},
                            "template": {"metadata": {"labels": {"app": name}},
                                         "spec": pod_spec}}}
            path = os.path.join(dev.work, name + ".json")
            with open(path, "w") as f:
                json.dump(obj, f)
            k("apply", "-f", path)
            k("rollout", "status", f"deployment/{name}", "--timeout=60s", timeout=90)
            items = json.loads(k("get", "pods", "-l", f"app={name}", "-o", "json"))["items"]
            return [p["spec"]["nodeName"] for p in items if "deletionTimestamp" not in p["metadata"]]

        hostname = "kubernetes.io/hostname"
        nodes = spread_deployment("spread", lambda name: {"topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": hostname, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": name}}}]})
        assert len(set(nodes)) == 4, nodes
        nodes = spread_deployment("apart", lambda name: {"affinity": {"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": hostname, "labelSelector": {"matchLabels": {"app": name}}}]}}})
        assert len(set(nodes)) == 4, nodes
        print("replicas spread over 4 nodes by topology spread and by anti-affinity", flush=True)
    print("PASS")


if __name__ == "__main__":
    main()
