#!/usr/bin/python3
"""BENCH ui: how fast the dashboard's GPU map draws a large cluster (`make bench-ui`).

One `etna server` (SQLite, TLS) holding NODES nodes of 8 H100s (two NVLink domains, 32 nodes
per switch) and pods bound to about 70 % of the GPUs in four queues, as the scheduler binds
them (nodeName and etna.io/gpu-ids); no agents run. Headless Chromium (tests/e2e/browser.py)
opens the GPU page; the page records the cost of each update (model, legend, canvas map,
fragmentation). Prints

    BENCH ui nodes=<n> gpus=<n> first_render_ms=<x> update_ms=<y>

first_render_ms: the first update with every informer synced and all nodes in (the whole map
from the objects in memory to pixels); update_ms: the median update after one more pod is
bound through the API (10 times).

Usage: ui_bench.py ETNA_BINARY [--nodes N]
"""
import argparse
import http.client
import json
import os
import random
import shutil
import ssl
import statistics
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
from browser import Browser  # noqa: E402
from cluster import start_etna_server  # noqa: E402

QUEUES = ["research", "production", "inference", "batch"]
READY = {"capacity": {"cpu": "128", "memory": "1Ti", "pods": "110", "nvidia.com/gpu": "8"},
         "allocatable": {"cpu": "128", "memory": "1Ti", "pods": "110", "nvidia.com/gpu": "8"},
         "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}


class Client:
    """One keep-alive HTTPS connection with the admin token."""

    def __init__(self, port, ca, token):
        context = ssl.create_default_context(cafile=ca)
        context.check_hostname = False
        self.conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=30)
        self.token = token

    def send(self, method, path, body, content_type="application/json"):
        self.conn.request(method, path, json.dumps(body), {
            "Authorization": f"Bearer {self.token}", "Content-Type": content_type})
        r = self.conn.getresponse()
        text = r.read()
        if r.status not in (200, 201):
            raise RuntimeError(f"{method} {path}: {r.status} {text[:300]!r}")

    def create(self, path, body):
        self.send("POST", path, body)


def node(i):
    gpus = [{"index": g, "uuid": f"GPU-{i:05d}-{g}", "model": "NVIDIA-H100-80GB-HBM3",
             "memoryMiB": 81559, "healthy": True, "nvlinkDomain": g // 4} for g in range(8)]
    return {"metadata": {"name": f"node-{i:05d}", "labels": {
        "nvidia.com/gpu.model": "NVIDIA-H100-80GB-HBM3", "topology.etna.io/switch": f"sw-{i // 32}"},
        "annotations": {"etna.io/gpus": json.dumps(gpus)}}}


def pod(name, node_name, ids, queue):
    return {"metadata": {"name": name, "annotations": {
        "etna.io/gpu-ids": ",".join(map(str, ids)), "scheduling.volcano.sh/queue-name": queue}},
        "spec": {"nodeName": node_name, "schedulerName": "volcano", "containers": [{
            "name": "c", "image": "busybox",
            "resources": {"limits": {"nvidia.com/gpu": str(len(ids))}}}]}}


def populate(port, ca, token, nodes, threads=4):
    """Creates the nodes and the bound pods from `threads` connections."""
    rng = random.Random(42)
    setup = Client(port, ca, token)
    for q in QUEUES:
        setup.create("/apis/scheduling.volcano.sh/v1beta1/queues",
                     {"metadata": {"name": q}, "spec": {"weight": 1}})
    work = [("/api/v1/nodes", node(i)) for i in range(nodes)]
    pods = []
    for i in range(nodes):
        free = list(range(8))
        while len(free) > 2 and rng.random() < 0.8:
            size = min(rng.choice([1, 2, 4]), len(free) - 2)  # two stay free on every node
            ids, free = free[:size], free[size:]
            pods.append(("/api/v1/namespaces/default/pods",
                         pod(f"p-{i}-{ids[0]}", f"node-{i:05d}", ids, rng.choice(QUEUES))))
    errors = []

    def run(items):
        client = Client(port, ca, token)
        try:
            for path, body in items:
                client.create(path, body)
                if path == "/api/v1/nodes":  # Ready, with its GPUs allocatable
                    client.send("PATCH", f"{path}/{body['metadata']['name']}/status",
                                {"status": READY}, "application/merge-patch+json")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(str(e))

    for batch in (work, pods):
        workers = [threading.Thread(target=run, args=(batch[t::threads],)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    if errors:
        raise RuntimeError(errors[0])
    return Client(port, ca, token), len(pods)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("etna")
    parser.add_argument("--nodes", type=int, default=1000)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="etna-ui-bench-")
    proc = None
    try:
        data = os.path.join(work, "data")
        proc, port = start_etna_server(args.etna, data, log_path=os.path.join(work, "server.log"))
        token = open(os.path.join(data, "tokens.csv")).read().split(",")[0]
        ca = os.path.join(data, "pki", "ca.crt")
        started = time.monotonic()
        client, pods = populate(port, ca, token, args.nodes)
        print(f"ui_bench: {args.nodes} nodes and {pods} pods created in "
              f"{time.monotonic() - started:.1f} s", file=sys.stderr)
        with Browser(args=["--ignore-certificate-errors"]) as browser:
            page = browser.open(f"https://127.0.0.1:{port}/ui/#token={token}")
            first = page.wait_for(
                f"(window.etna && window.etna.gpuUpdates || []).find((u) => u.synced && u.nodes === {args.nodes})",
                timeout=120)
            updates = []
            for i in range(10):
                seen = page.eval("window.etna.gpuUpdates.length")
                held = page.eval("window.etna.gpuUpdates[window.etna.gpuUpdates.length - 1].held")
                # A free GPU: every node keeps at least 2 (populate stops at 2 free).
                client.create("/api/v1/namespaces/default/pods",
                              pod(f"extra-{i}", f"node-{i:05d}", [7], "research"))
                u = page.wait_for(f"window.etna.gpuUpdates.slice({seen}).find((u) => u.held > {held})",
                                  timeout=30)
                updates.append(u["ms"])
            gpus = page.eval("window.etna.gpuMap.gpus")
        print(f"BENCH ui nodes={args.nodes} gpus={gpus} first_render_ms={first['ms']:.1f} "
              f"update_ms={statistics.median(updates):.1f}", flush=True)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
