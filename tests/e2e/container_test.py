#!/usr/bin/python3
"""End to end: pods as real containers (`etna dev --runtime container`: runc, skopeo, umoci).

A local registry (Debian's docker-registry) serves an image built here from the static busybox;
a second one requires a login. The test makes fake GPU device nodes (nvidia0..7, nvidiactl) and
checks, with kubectl as a user would:
  1. a pod sees its cgroup, its memory limit, its own hostname, and exactly the device nodes of
     the GPUs it was bound to;
  2. a pod over its memory limit is OOMKilled with exit code 137; a missing image gives
     ErrImagePull, then ImagePullBackOff, with the registry's message; the private image is
     refused without its pull secret and runs with it;
  3. after `etna dev` is killed with SIGKILL and started again, a running container is adopted
     (not started twice, its log goes on); stopping etna dev then stops every container.

Usage: container_test.py ETNA_BINARY
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from containers import make_gpu_devices  # noqa: E402
from dev import Dev, wait_for  # noqa: E402
from registry import Registry  # noqa: E402


def pod(name, image, command, limits=None, policy="Never", extra=None):
    spec = {"restartPolicy": policy, "terminationGracePeriodSeconds": 2,
            "containers": [{"name": "main", "image": image, "command": ["sh", "-c", command],
                            "resources": {"limits": limits or {}}}]}
    spec.update(extra or {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def apply(dev, obj):
    path = os.path.join(dev.work, obj["metadata"]["name"] + ".json")
    with open(path, "w") as f:
        json.dump(obj, f)
    dev.k("apply", "-f", path)


def get(dev, name):
    return json.loads(dev.k("get", "pod", name, "-o", "json"))


def waiting(dev, name):
    statuses = get(dev, name).get("status", {}).get("containerStatuses", [])
    return statuses[0].get("state", {}).get("waiting", {}) if statuses else {}


def phase(dev, name):
    return get(dev, name).get("status", {}).get("phase", "")


def main():
    etna = sys.argv[1]
    work = subprocess.run(["mktemp", "-d", "/tmp/etna-container-XXXXXX"], capture_output=True,
                          text=True, check=True).stdout.strip()
    gpu_dev = make_gpu_devices(work)
    args = ["--runtime", "container", "--gpu-device-dir", gpu_dev]
    with Registry(work) as reg, Registry(work, "private", "alice", "s3cret") as private:
        image = reg.push_busybox("tools/busybox:1", os.path.join(work, "image"))
        secret_image = private.push_busybox("team/secret:1", os.path.join(work, "image"))
        with Dev(etna, args=args, work=os.path.join(work, "dev")) as dev:
            check_isolation(dev, image)
            check_failures(dev, image, reg, secret_image, private)
            apply(dev, pod("ticker", image,
                           "echo started; i=0; while true; do echo tick $i; i=$((i+1)); "
                           "sleep 0.2; done", policy="Always"))
            wait_for(lambda: phase(dev, "ticker") == "Running", "the ticker runs")
            wait_for(lambda: "tick 3" in dev.k("logs", "ticker"), "the ticker ticks")
            dev.proc.send_signal(signal.SIGKILL)
            dev.proc.wait(timeout=30)
            dev.leave_containers = True
        with Dev(etna, args=args, work=os.path.join(work, "dev")) as dev:
            check_adoption(dev)
            dev.proc.terminate()
            dev.proc.wait(timeout=60)
            left = subprocess.run(
                ["sh", "-c", f"for r in {dev.work}/nodes/*/runc; do runc --root $r list -q; done"],
                capture_output=True, text=True).stdout.split()
            assert left == [], f"containers left after etna dev stopped: {left}"
            mounts = [m for m in open("/proc/self/mounts") if dev.work + "/" in m]
            assert not any(" overlay " in m for m in mounts), mounts
    subprocess.run(["rm", "-rf", work])
    print("PASS container_test")


def check_isolation(dev, image):
    apply(dev, pod("gpu-view", image,
                   "grep memory /proc/self/cgroup; "
                   "echo limit=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes "
                   "/sys/fs/cgroup/memory.max 2>/dev/null); echo host=$(hostname); "
                   "echo devices=$(ls /dev | grep nvidia | tr '\\n' ' '); "
                   "echo cuda=$CUDA_VISIBLE_DEVICES",
                   limits={"memory": "64Mi", "nvidia.com/gpu": "2"},
                   extra={"nodeSelector": {"kubernetes.io/os": "linux"}}))
    wait_for(lambda: phase(dev, "gpu-view") == "Succeeded", "gpu-view completes")
    log = dev.k("logs", "gpu-view")
    p = get(dev, "gpu-view")
    ids = p["metadata"]["annotations"]["etna.io/gpu-ids"].split(",")
    assert len(ids) == 2, p["metadata"]["annotations"]
    uid = p["metadata"]["uid"]
    assert re.search(rf"memory:/etna/pod{uid}/main-0", log), log
    assert f"limit={64 << 20}" in log, log
    assert "host=gpu-view" in log, log
    seen = sorted(re.search(r"devices=(.*)", log).group(1).split())
    assert seen == sorted([f"nvidia{i}" for i in ids] + ["nvidiactl"]), (seen, ids, log)
    assert "cuda=0,1" in log, log
    status = p["status"]["containerStatuses"][0]
    repository = image.rsplit(":", 1)[0]  # HOST:PORT/tools/busybox
    assert re.fullmatch(re.escape(repository) + r"@sha256:[0-9a-f]{64}", status["imageID"]), status
    node = json.loads(dev.k("get", "node", p["spec"]["nodeName"], "-o", "json"))
    assert node["status"]["nodeInfo"]["containerRuntimeVersion"].startswith("runc://"), node


def check_failures(dev, image, reg, secret_image, private):
    apply(dev, pod("oom", image, 'x=a; while true; do x="$x$x"; done',
                   limits={"memory": "32Mi"}))
    wait_for(lambda: phase(dev, "oom") == "Failed", "the OOM pod fails")
    term = get(dev, "oom")["status"]["containerStatuses"][0]["state"]["terminated"]
    assert term["reason"] == "OOMKilled" and term["exitCode"] == 137, term

    apply(dev, pod("missing", f"{reg.host}/nope:1", "true"))
    reasons = set()

    def backed_off():
        w = waiting(dev, "missing")
        if w.get("reason"):
            reasons.add(w["reason"])
        return w.get("reason") == "ImagePullBackOff"
    wait_for(backed_off, "ImagePullBackOff")
    w = waiting(dev, "missing")
    assert "manifest unknown" in w["message"], w
    events = dev.k("get", "events", "--field-selector", "involvedObject.name=missing")
    assert "ErrImagePull" in events and "manifest unknown" in events, events

    apply(dev, pod("no-secret", secret_image, "echo in"))
    wait_for(lambda: waiting(dev, "no-secret").get("reason") in ("ErrImagePull",
                                                                "ImagePullBackOff"),
             "the private image is refused without credentials")
    assert "unauthorized" in waiting(dev, "no-secret")["message"], waiting(dev, "no-secret")
    dev.k("create", "secret", "docker-registry", "regcred", f"--docker-server={private.host}",
          "--docker-username=alice", "--docker-password=s3cret")
    apply(dev, pod("with-secret", secret_image, "echo private ok",
                   extra={"imagePullSecrets": [{"name": "regcred"}]}))
    wait_for(lambda: phase(dev, "with-secret") == "Succeeded", "the private image runs")
    assert dev.k("logs", "with-secret") == "private ok\n"


def check_adoption(dev):
    wait_for(lambda: phase(dev, "ticker") == "Running", "the ticker is running")
    first = int(re.findall(r"tick (\d+)", dev.k("logs", "ticker"))[-1])
    wait_for(lambda: int(re.findall(r"tick (\d+)", dev.k("logs", "ticker"))[-1]) > first + 3,
             "the adopted ticker's log goes on")
    log = dev.k("logs", "ticker")
    assert log.count("started") == 1, log
    status = get(dev, "ticker")["status"]["containerStatuses"][0]
    assert status["restartCount"] == 0, status


if __name__ == "__main__":
    main()
