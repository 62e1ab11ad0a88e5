#!/usr/bin/python3
"""End to end: `etna dev` alone (what `make demo` runs) — one process with the server, the
scheduler, the controllers and the simulated nodes of the built-in profile — runs the seed's
queues and its runnable training job to completion, makes the namespaces the seed uses
(inference, monitoring), and writes DIR/kubeconfig.

Usage: dev_test.py ETNA_BINARY SEED_DIR EXAMPLES_DIR
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dev import Dev  # noqa: E402


def processes_naming(text):
    """The pids whose command line contains `text`."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.append(int(pid))
        except (OSError, ValueError):
            pass
    return found


def main():
    etna, seed, examples = sys.argv[1:4]
    with Dev(etna) as dev:
        k = dev.k
        out = dev.output()
        assert re.search(r"8 simulated nodes with 44 GPUs", out), out
        assert f"export KUBECONFIG={dev.kubeconfig}" in out, out

        assert len(k("get", "nodes", "-o", "name").split()) == 8
        # The official client deserializes every Node (it refuses one without nodeInfo.bootID),
        # and the kubelet's well-known labels are there for everyday nodeSelectors.
        from kubernetes import client, config
        nodes = client.CoreV1Api(config.new_client_from_config(dev.kubeconfig)).list_node()
        assert len(nodes.items) == 8
        for n in nodes.items:
            assert n.status.node_info.boot_id and n.status.node_info.kernel_version, n.status
            assert n.metadata.labels["kubernetes.io/os"] == "linux", n.metadata.labels
            assert n.metadata.labels["kubernetes.io/arch"], n.metadata.labels
        # The namespaces the seed's files use without creating them (its Deployment and HPA in
        # inference, its monitoring ConfigMaps in monitoring).
        names = k("get", "namespaces", "-o", "jsonpath={.items[*].metadata.name}").split()
        assert "inference" in names and "monitoring" in names, names
        k("apply", "-f", os.path.join(seed, "volcano-queues.yaml"))
        job = open(os.path.join(examples, "seed-training-runnable.yaml")).read()
        job = job.replace("${EPOCH_SECONDS:-2}", "0.2")
        path = os.path.join(dev.work, "job.yaml")
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

        # Stopping etna dev stops its pods (no --keep-pods): nothing of it keeps running.
        marker = os.path.join(dev.work, "still-here")
        k("run", "sleeper", "--image=busybox", "--restart=Never", "--overrides",
          '{"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}', "--command", "--",
          "sh", "-c", f"sleep 300 # {marker}")
        deadline = time.monotonic() + 60
        while k("get", "pod", "sleeper", "-o", "jsonpath={.status.phase}") != "Running":
            assert time.monotonic() < deadline, "the sleeper never ran"
            time.sleep(0.2)
        assert processes_naming(marker), "the sleeper runs as a process"
        # Its supervisor is the small etna-agent-shim the build puts beside etna, not etna.
        supervisors = set()
        for pid in processes_naming(marker):
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            for p in (pid, ppid):
                try:
                    supervisors.add(os.readlink(f"/proc/{p}/exe"))
                except OSError:
                    pass
        assert any(s.endswith("/etna-agent-shim") for s in supervisors), supervisors
        dev.proc.terminate()
        dev.proc.wait(timeout=60)
        assert "pods get their grace periods" in dev.output(), dev.output()[-2000:]
        assert not processes_naming(marker), processes_naming(marker)
    print("PASS")


if __name__ == "__main__":
    main()
