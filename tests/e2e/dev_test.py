#!/usr/bin/python3
"""End to end: `etna dev` alone (what `make demo` runs) — one process with the server, the
scheduler, the controllers and the simulated nodes of the built-in profile — runs the seed's
queues and its runnable training job to completion, makes the namespaces the seed uses
(inference, monitoring), and writes DIR/kubeconfig.

Usage: dev_test.py ETNA_BINARY SEED_DIR EXAMPLES_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

KUBECTL = os.environ.get("KUBECTL", "kubectl")


def main():
    etna, seed, examples = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="etna-dev-")
    log = open(os.path.join(work, "dev.log"), "w+")
    dev = subprocess.Popen([etna, "dev", "--data-dir", work, "--listen", "127.0.0.1:0"],
                           stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while "etna dev: ready" not in open(log.name).read():
            if dev.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("etna dev did not get ready:\n" + open(log.name).read())
            time.sleep(0.05)
        out = open(log.name).read()
        assert re.search(r"8 simulated nodes with 44 GPUs", out), out
        kubeconfig = os.path.join(work, "kubeconfig")
        assert f"export KUBECONFIG={kubeconfig}" in out, out

        def k(*args):
            r = subprocess.run([KUBECTL, "--kubeconfig", kubeconfig] + list(args),
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, f"kubectl {args}: {r.stderr}"
            return r.stdout

        assert len(k("get", "nodes", "-o", "name").split()) == 8
        # The namespaces the seed's files use without creating them (its Deployment and HPA in
        # inference, its monitoring ConfigMaps in monitoring).
        names = k("get", "namespaces", "-o", "jsonpath={.items[*].metadata.name}").split()
        assert "inference" in names and "monitoring" in names, names
        k("apply", "-f", os.path.join(seed, "volcano-queues.yaml"))
        job = open(os.path.join(examples, "seed-training-runnable.yaml")).read()
        job = job.replace("${EPOCH_SECONDS:-2}", "0.2")
        path = os.path.join(work, "job.yaml")
        open(path, "w").write(job)
        k("apply", "-f", path)
        deadline = time.monotonic() + 90
        phase = ""
        while phase != "Completed":
            assert time.monotonic() < deadline, f"the job is {phase!r} after 90 s"
            phase = k("get", "vcjob", "bert-finetune-training", "-o",
                      "jsonpath={.status.state.phase}")
            time.sleep(0.2)
        nodes = set(k("get", "pods", "-o", "jsonpath={.items[*].spec.nodeName}").split())
        assert len(nodes) == 1 and nodes.pop().startswith("h100-"), nodes
        chief = k("logs", "bert-finetune-training-chief-0")
        assert "rank=0 world_size=4" in chief and "chief: done" in chief, chief
    finally:
        dev.terminate()
        dev.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
