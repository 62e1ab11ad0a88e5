#!/usr/bin/python3
"""BENCH runtime: how fast one node's agent starts pods (`make bench-runtime`).

`etna server`, `etna scheduler`, `etna controllers` and one `etna agent` as processes (the
e2e tests' Cluster); 200 pods created already bound to the node (spec.nodeName), each
`sleep 600` — with --runtime container from a small image (busybox-static, built here and
served by a local docker-registry) that a first pod has already pulled, so the image is cached.
Measures, per pod, from its create's response to the first list that shows it Running (lists
every 20 ms), and the agent's peak RSS. Prints:

    BENCH runtime backend=<container|process> pods=<n> bind_to_running_p50_ms=<x> p99_ms=<y> agent_rss_mb=<z>

Usage: runtime_bench.py ETNA_BINARY [--runtime container|process] [--pods N]
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
from cluster import Cluster, h100_profile  # noqa: E402
from registry import Registry  # noqa: E402


def pod(name, image, node):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeName": node, "restartPolicy": "Never",
                     "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "main", "image": image,
                                     "command": ["sleep", "600"]}]}}


def create(c, obj):
    status, body = c.request("POST", "/api/v1/namespaces/default/pods", obj)
    assert status == 201, (status, body)


def running(c):
    out = {}
    for p in c.items("/api/v1/namespaces/default/pods"):
        if p.get("status", {}).get("phase") == "Running":
            out[p["metadata"]["name"]] = True
    return out


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("etna")
    ap.add_argument("--runtime", default="container", choices=["container", "process"])
    ap.add_argument("--pods", type=int, default=200)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="etna-runtime-bench-")
    node = "h100-0"
    with Registry(work) as reg:
        image = reg.push_busybox("bench/busybox:1", os.path.join(work, "image"))
        with Cluster(a.etna, h100_profile(1), [node],
                     agent_args=["--runtime", a.runtime, "--lease-seconds", "40"]) as c:
            # The image, pulled once: every measured pod starts from the cache.
            create(c, pod("warm", image, node))
            c.wait(lambda: "warm" in running(c), "the warm-up pod runs", timeout=120)
            created = {}
            for i in range(a.pods):
                name = f"p{i}"
                create(c, pod(name, image, node))
                created[name] = time.monotonic()
            seen = {}
            deadline = time.monotonic() + 300
            while len(seen) < a.pods and time.monotonic() < deadline:
                now = time.monotonic()
                for name in running(c):
                    if name in created and name not in seen:
                        seen[name] = now
                time.sleep(0.02)
            assert len(seen) == a.pods, f"{len(seen)} of {a.pods} pods ran within 300 s"
            latencies = [(seen[n] - created[n]) * 1000 for n in created]
            agent = c.procs[f"agent-{node}"].pid
            rss_kb = 0
            for line in open(f"/proc/{agent}/status"):
                if line.startswith("VmHWM:"):
                    rss_kb = int(line.split()[1])
            for name in list(created) + ["warm"]:
                c.request("DELETE", f"/api/v1/namespaces/default/pods/{name}")
            # The agent removes each pod (its container, overlay and cgroup) before it goes.
            c.wait(lambda: not c.items("/api/v1/namespaces/default/pods"),
                   "the agent removed every pod", timeout=300)
    print(f"BENCH runtime backend={a.runtime} pods={a.pods} "
          f"bind_to_running_p50_ms={percentile(latencies, 0.5):.0f} "
          f"p99_ms={percentile(latencies, 0.99):.0f} agent_rss_mb={rss_kb / 1024:.0f}")


if __name__ == "__main__":
    main()
