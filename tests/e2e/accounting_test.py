#!/usr/bin/env python3
"""Accounting across a crash, as a user sees it: one PodRun per pod run, never two.

`etna dev` runs a Volcano Job of two pods, a bare pod that fails and a long pod; it is killed
with SIGKILL (server, scheduler, controllers and agents at once) while they run, and started
again on the same directory, which adopts the running pods. When they have ended (the long one
deleted), `kubectl get podruns` has exactly one record per pod, with its end, exit code, queue,
workload and creator, and `etna usage` counts them.

Usage: accounting_test.py ETNA_BINARY
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dev import Dev, wait_for  # noqa: E402

WORKLOADS = """
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: quick}
spec:
  minAvailable: 2
  schedulerName: volcano
  queue: default
  tasks:
  - name: w
    replicas: 2
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: busybox
          command: ["sh", "-c", "sleep 8; exit 0"]
          resources: {limits: {nvidia.com/gpu: 2}}
---
apiVersion: v1
kind: Pod
metadata: {name: failing}
spec:
  schedulerName: volcano
  restartPolicy: Never
  containers:
  - name: c
    image: busybox
    command: ["sh", "-c", "sleep 8; exit 3"]
    resources: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: long}
spec:
  schedulerName: volcano
  restartPolicy: Never
  terminationGracePeriodSeconds: 2
  containers:
  - name: c
    image: busybox
    command: ["sh", "-c", "sleep 600"]
    resources: {limits: {nvidia.com/gpu: 1}}
"""

PODS = ["quick-w-0", "quick-w-1", "failing", "long"]


def pods(dev):
    return {p["metadata"]["name"]: p
            for p in json.loads(dev.k("get", "pods", "-o", "json"))["items"]}


def usage(etna, dev, by, *args):
    """`etna usage --by BY -o json [ARGS]`'s rows by their key."""
    out = subprocess.run([etna, "usage", "--kubeconfig", dev.kubeconfig, "--by", by, "-o", "json"]
                         + list(args), capture_output=True, text=True, check=True).stdout
    return {item[by]: item for item in json.loads(out)["items"]}


def main():
    etna = sys.argv[1]
    work = tempfile.mkdtemp(prefix="etna-accounting-")
    try:
        manifest = os.path.join(work, "workloads.yaml")
        with open(manifest, "w") as f:
            f.write(WORKLOADS)
        uids = {}
        with Dev(etna, work=os.path.join(work, "dev")) as dev:
            dev.k("apply", "-f", manifest)
            wait_for(lambda: all(pods(dev).get(p, {}).get("status", {}).get("phase") == "Running"
                                 for p in PODS), "the four pods to run")
            uids = {name: p["metadata"]["uid"] for name, p in pods(dev).items()}
            assert json.loads(dev.k("get", "podruns", "-o", "json"))["items"] == []
            # Runs still going count in `etna usage`, attributed as their records will be.
            by_job = usage(etna, dev, "job")
            assert by_job["default/quick"]["running"] == 2, by_job
            assert by_job["default/long"]["running"] == 1, by_job
            assert usage(etna, dev, "user")["admin"]["running"] == 4
            # -n reads that namespace's pods and their owners only, and attributes them the same.
            assert usage(etna, dev, "job", "-n", "default")["default/quick"]["running"] == 2
            dev.proc.send_signal(signal.SIGKILL)  # everything at once, while they run
            dev.proc.wait(timeout=30)
            dev.leave_containers = True
        with Dev(etna, work=os.path.join(work, "dev")) as dev:
            def ended():
                now = pods(dev)
                return all(now.get(p, {}).get("status", {}).get("phase") in ("Succeeded", "Failed")
                           for p in ("quick-w-0", "quick-w-1", "failing"))
            wait_for(ended, "the short pods to end after the restart")
            dev.k("delete", "pod", "long")
            # The agent reports the same ends again as it settles; the records must not repeat.
            dev.k("delete", "pod", "failing")
            models = {n["metadata"]["name"]: n["metadata"]["labels"].get("nvidia.com/gpu.model")
                      for n in json.loads(dev.k("get", "nodes", "-o", "json"))["items"]}
            runs = json.loads(dev.k("get", "podruns", "-o", "json"))["items"]
            by_pod = {}
            for r in runs:
                assert r["pod"]["name"] not in by_pod, f"two runs of {r['pod']['name']}: {runs}"
                by_pod[r["pod"]["name"]] = r
            assert sorted(by_pod) == sorted(PODS), sorted(by_pod)
            for name in PODS:
                r = by_pod[name]
                assert r["pod"]["uid"] == uids[name], (name, r["pod"]["uid"], uids[name])
                assert r["queue"] == "default" and r["user"] == "admin", r
                assert r["gpus"][0]["model"] == models[r["pod"]["node"]], (r, models)
                assert r["ended"] >= r["scheduled"] >= r["created"], r
            for name in ("quick-w-0", "quick-w-1"):
                r = by_pod[name]
                assert (r["phase"], r["exitCode"], r["totalGpus"]) == ("Succeeded", 0, 2), r
                assert r["job"] == {"kind": "Job", "name": "quick"}, r
            assert (by_pod["failing"]["phase"], by_pod["failing"]["exitCode"]) == ("Failed", 3)
            assert by_pod["failing"]["job"] == {"kind": "Pod", "name": "failing"}
            assert by_pod["long"]["phase"] in ("Running", "Failed"), by_pod["long"]
            assert not by_pod["long"]["preempted"], by_pod["long"]

            quick = usage(etna, dev, "job")["default/quick"]
            assert quick["runs"] == 2 and quick["running"] == 0 and quick["gpuHours"] > 0, quick
            # -n: one namespace's runs (selected by the server), none of another's.
            assert usage(etna, dev, "job", "-n", "default")["default/quick"]["runs"] == 2
            assert usage(etna, dev, "job", "-n", "kube-system") == {}
        print("PASS accounting_test")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
