#!/usr/bin/python3
"""End to end: KEDA's ScaledObject in `etna dev` with a real Prometheus (Debian's) scraping it
with the shipped configuration (deploy/prometheus). A prometheus trigger whose query averages
the inference Deployment's DCGM_FI_DEV_GPU_UTIL (examples/jobs/seed-inference-runnable.yaml,
its GPU load driven through the replicas' shared LOAD_DIR/total) scales it from 1 to N through
the HPA it owns (keda-hpa-<name>) and back to 0 with minReplicaCount 0; an unreachable
Prometheus is a condition on the ScaledObject and on its HPA while the Deployment keeps its
size; the seed's ScaledObject with its apiVersion added is refused naming the missing query.

Usage: keda_test.py ETNA_BINARY SEED_DIR EXAMPLES_DIR REPO_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dev import KUBECTL, Dev, wait_for  # noqa: E402
from monitoring_test import Prometheus, free_port  # noqa: E402

NS = "inference"
DEPLOY = "deployment/bert-inference-service"
QUERY = 'avg(DCGM_FI_DEV_GPU_UTIL{namespace="inference",pod=~"bert-inference-service-.*"})'


class Scraped:
    """What monitoring_test.Prometheus needs to know of an `etna dev`."""

    def __init__(self, dev):
        self.ca = os.path.join(dev.work, "pki", "ca.crt")
        self.targets = os.path.join(dev.work, "prometheus-targets.json")
        groups = json.load(open(self.targets))
        self.server = [g["targets"][0] for g in groups
                       if g["labels"]["job"] == "etna-apiserver"][0]


def scaled_object(server, min_count=0):
    return json.dumps({
        "apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
        "metadata": {"name": "bert-scaler", "namespace": NS},
        "spec": {"scaleTargetRef": {"name": "bert-inference-service"},
                 "minReplicaCount": min_count, "maxReplicaCount": 6,
                 "pollingInterval": 1, "cooldownPeriod": 5,
                 "triggers": [{"type": "prometheus", "metricType": "Value", "metadata": {
                     "serverAddress": server, "query": QUERY, "threshold": "60",
                     "activationThreshold": "5"}}]}})


def main():
    etna, seed, examples, repo = sys.argv[1:5]
    # An operator-defined external metric (--metric-rules) over the Prometheus started below.
    prom_port = free_port()
    rules = tempfile.NamedTemporaryFile("w", suffix=".yaml", prefix="etna-keda-rules-")
    rules.write(f"prometheus: http://127.0.0.1:{prom_port}\nexternalRules:\n"
                "- name: inference_gpu_util\n"
                "  query: avg(DCGM_FI_DEV_GPU_UTIL{<<.LabelMatchers>>})\n")
    rules.flush()
    with Dev(etna, prefix="etna-keda-",
             args=["--hpa-sync-period", "1s", "--metric-rules", rules.name]) as dev, \
            tempfile.TemporaryDirectory(prefix="etna-keda-prom-") as work:
        k = dev.k

        def apply(text):
            return subprocess.run([KUBECTL, "--kubeconfig", dev.kubeconfig, "apply", "-f", "-"],
                                  input=text, capture_output=True, text=True, timeout=60)

        def replicas():
            return json.loads(k("get", DEPLOY, "-n", NS, "-o", "json"))["spec"]["replicas"]

        def condition(resource, kind):
            obj = json.loads(k("get", resource, "-n", NS, "-o", "json"))
            for c in obj.get("status", {}).get("conditions", []):
                if c["type"] == kind:
                    return c
            return {}


        manifest = dev.runnable_inference(examples)
        dev.set_load(40)
        k("apply", "-f", os.path.join(seed, "volcano-queues.yaml"))
        k("apply", "-f", manifest)
        k("delete", "hpa", "bert-inference-hpa", "-n", NS)  # KEDA's HPA replaces the seed's
        k("scale", DEPLOY, "-n", NS, "--replicas=1")
        k("rollout", "status", DEPLOY, "-n", NS, "--timeout=120s", timeout=150)
        prometheus = Prometheus(repo, work, Scraped(dev), port=prom_port)
        try:
            wait_for(lambda: prometheus.query(QUERY), "Prometheus to scrape the replica's GPU")
            ruled = json.loads(k("get", "--raw", "/apis/external.metrics.k8s.io/v1beta1/"
                                 f"namespaces/{NS}/inference_gpu_util"))["items"]
            assert len(ruled) == 1 and ruled[0]["metricName"] == "inference_gpu_util", ruled
            assert float(ruled[0]["value"].rstrip("m")) > 0, ruled
            print("the operator's external metric from Prometheus:", ruled[0]["value"], flush=True)

            # The seed's ScaledObject, given an apiVersion, still has no query.
            printed = open(os.path.join(seed, "keda-scaledobject.yaml")).read()
            refused = apply("apiVersion: keda.sh/v1alpha1\n" + printed.replace(
                "metadata:\n  name: inference-scaler",
                "metadata:\n  name: inference-scaler\n  namespace: inference", 1))
            assert refused.returncode != 0 and \
                "spec.triggers[0].metadata.query" in refused.stderr, refused.stderr
            print("the seed's ScaledObject with an apiVersion: refused, naming its query",
                  flush=True)

            made = apply(scaled_object(prometheus.url))
            assert made.returncode == 0, made.stderr
            wait_for(lambda: condition("scaledobject/bert-scaler", "Ready").get("status") == "True",
                 "the ScaledObject Ready")
            hpa = json.loads(k("get", "hpa", "keda-hpa-bert-scaler", "-n", NS, "-o", "json"))
            assert hpa["spec"]["metrics"][0]["external"]["metric"]["name"] == "s0-prometheus"
            table = k("get", "scaledobject", "bert-scaler", "-n", NS)
            assert "READY" in table and "True" in table, table

            dev.set_load(200)  # one replica at 100 %: above the 60 target
            wait_for(lambda: replicas() >= 3, "the scale-out from 1", timeout=60)
            k("rollout", "status", DEPLOY, "-n", NS, "--timeout=60s", timeout=90)
            top = replicas()
            print(f"1 -> {top} replicas on avg(DCGM_FI_DEV_GPU_UTIL)", flush=True)

            # Prometheus unreachable: conditions, and the Deployment keeps its size.
            k("patch", "scaledobject/bert-scaler", "-n", NS, "--type=merge", "-p", json.dumps(
                {"spec": {"triggers": [{"type": "prometheus", "metricType": "Value", "metadata": {
                    "serverAddress": "http://127.0.0.1:1", "query": QUERY, "threshold": "60",
                    "activationThreshold": "5"}}]}}))
            wait_for(lambda: "unreachable" in condition("scaledobject/bert-scaler", "Ready")
                 .get("message", ""), "Ready False on the unreachable Prometheus")
            wait_for(lambda: condition("hpa/keda-hpa-bert-scaler", "ScalingActive").get("reason")
                 == "FailedGetExternalMetric", "the HPA's FailedGetExternalMetric")
            dev.set_load(0)
            time.sleep(7)  # past the cooldown: a failing trigger never deactivates
            assert replicas() == top, replicas()
            print("unreachable Prometheus: Ready False, FailedGetExternalMetric, size kept",
                  flush=True)

            made = apply(scaled_object(prometheus.url))
            assert made.returncode == 0, made.stderr
            wait_for(lambda: replicas() == 0, "the scale-in to 0", timeout=60)
            wait_for(lambda: condition("scaledobject/bert-scaler", "Active").get("status") == "False",
                 "Active False")
            events = json.loads(k("get", "events", "-n", NS, "--field-selector",
                                  "involvedObject.name=bert-scaler", "-o", "json"))["items"]
            reasons = {e["reason"] for e in events}
            assert "KEDAScaleTargetDeactivated" in reasons, reasons
            print(f"{top} -> 0 after the cooldown", flush=True)
        finally:
            prometheus.stop()
    print("PASS")


if __name__ == "__main__":
    main()
