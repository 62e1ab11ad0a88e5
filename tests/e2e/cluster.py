"""A whole etna cluster on loopback for end-to-end tests: `etna server`, `etna scheduler`,
`etna controllers` and one `etna agent` per node of a cluster profile, each its own process,
so a test can SIGKILL and restart any of them. Objects are read through the REST API and
written with kubectl, as a user would.

    with Cluster(etna, profile_yaml, ["h100-0"]) as c:
        c.kubectl("apply", "-f", "job.yaml")
        c.wait(lambda: c.pods(job="j"), "pods of j")
"""
import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

from containers import release_containers

KUBECTL = os.environ.get("KUBECTL", "kubectl")


class Cluster:
    def __init__(self, etna, profile_yaml, nodes, lease_seconds=3, period="200ms",
                 agent_args=(), node_ips=None, server_args=(), daemon_args=(),
                 server_listen="127.0.0.1", agent_wrap=None):
        self.etna = etna
        self.server_args = list(server_args)
        self.daemon_args = list(daemon_args)  # more flags for the scheduler and controllers
        self.agent_args = list(agent_args)
        self.node_ips = dict(node_ips or {})  # node -> its InternalIP (default 127.0.0.1)
        self.server_listen = server_listen
        # node -> fn(cluster) giving (command prefix, kubeconfig) for its agent: e.g. `ip netns
        # exec NS` and a kubeconfig naming the server's address as seen from there.
        self.agent_wrap = dict(agent_wrap or {})
        self.nodes = nodes
        self.lease_seconds = lease_seconds
        self.period = period
        self.work = tempfile.mkdtemp(prefix="etna-e2e-")
        self.profile = os.path.join(self.work, "profile.yaml")
        with open(self.profile, "w") as f:
            f.write(profile_yaml)
        self.data = os.path.join(self.work, "server")
        self.procs = {}
        self.port = None

    # ---- processes ----

    def __enter__(self):
        self.start_server()
        self.start_scheduler()
        self.start_controllers()
        for node in self.nodes:
            self.start_agent(node)
        for node in self.nodes:
            self.wait(lambda n=node: self.node_ready(n), f"node {node} Ready", timeout=30)
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.dump_logs()
        for name in list(self.procs):
            self.stop(name)
        # Containers run under the agents' shims; stop whatever is left of them.
        kill_processes_mentioning(self.work)
        release_containers(self.work)
        shutil.rmtree(self.work, ignore_errors=True)
        return False

    def start_server(self):
        proc, self.port = start_etna_server(
            self.etna, self.data, f"{self.server_listen}:{self.port or 0}", self.server_args,
            os.path.join(self.work, "server.log"))
        self.procs["server"] = proc
        self.kubeconfig = os.path.join(self.data, "kubeconfig")
        self.ca = os.path.join(self.data, "pki", "ca.crt")
        self.token = open(os.path.join(self.data, "tokens.csv")).read().split(",")[0]

    def start_scheduler(self):
        self.start("scheduler", ["scheduler", "--kubeconfig", self.kubeconfig,
                                 "--period", self.period, "--listen", "127.0.0.1:0"] +
                   self.daemon_args)

    def start_controllers(self):
        self.start("controllers", ["controllers", "--kubeconfig", self.kubeconfig,
                                   "--lease-grace-seconds", "1", "--listen", "127.0.0.1:0"] +
                   self.daemon_args)

    def pid(self, name):
        """The process id of daemon `name` ("server", "scheduler", "agent-<node>"), or None
        when it is not running."""
        proc = self.procs.get(name)
        return proc.pid if proc is not None and proc.poll() is None else None

    def start(self, name, args, prefix=()):
        log = open(os.path.join(self.work, f"{name}.log"), "ab")
        self.procs[name] = subprocess.Popen(list(prefix) + [self.etna] + args, stdout=log,
                                            stderr=log, start_new_session=True)

    def start_agent(self, node):
        ip = self.node_ips.get(node, "127.0.0.1")
        prefix, kubeconfig = (self.agent_wrap[node](self) if node in self.agent_wrap
                              else ([], self.kubeconfig))
        self.start(f"agent-{node}", [
            "agent", "--kubeconfig", kubeconfig, "--node-name", node,
            "--data-dir", os.path.join(self.work, "agents", node), "--listen", f"{ip}:0",
            "--profile", self.profile, "--profile-node", node,
            "--lease-seconds", str(self.lease_seconds), "--internal-ip", ip] + self.agent_args,
            prefix)

    def stop(self, name, sig=signal.SIGTERM):
        proc = self.procs.pop(name, None)
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def dump_logs(self):
        daemons = ["server", "scheduler", "controllers"] + [f"agent-{n}" for n in self.nodes]
        others = sorted(f[:-4] for f in os.listdir(self.work)
                        if f.endswith(".log") and f[:-4] not in daemons)
        for name in daemons + others:
            path = os.path.join(self.work, f"{name}.log")
            if os.path.exists(path):
                lines = open(path, errors="replace").read().splitlines()[-25:]
                print(f"--- {name}.log (last {len(lines)} lines)", file=sys.stderr)
                for line in lines:
                    print(line, file=sys.stderr)

    def metrics(self, name):
        """The /metrics text of daemon `name` ("scheduler", "controllers") from the address
        its log announced."""
        log = open(os.path.join(self.work, f"{name}.log"), errors="replace").read()
        m = re.search(r"metrics on (http://\S+/metrics)", log)
        if not m:
            raise AssertionError(f"{name} announced no metrics address:\n{log}")
        with urllib.request.urlopen(m.group(1), timeout=10) as r:
            return r.read().decode()

    # ---- API ----

    def request(self, method, path, body=None, content_type="application/json"):
        ctx = ssl.create_default_context(cafile=self.ca)
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=ctx, timeout=30)
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": content_type}
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, json.loads(data) if data[:1] in (b"{", b"[") else data

    def get(self, path):
        status, body = self.request("GET", path)
        return body if status == 200 else None

    def items(self, path):
        body = self.get(path)
        return body["items"] if body else []

    def kubectl(self, *args, check=True):
        r = subprocess.run([KUBECTL, "--kubeconfig", self.kubeconfig] + list(args),
                           capture_output=True, text=True, timeout=60)
        if check and r.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)}: {r.stderr}")
        return r

    def apply(self, yaml_text):
        path = os.path.join(self.work, f"apply-{time.monotonic_ns()}.yaml")
        with open(path, "w") as f:
            f.write(yaml_text)
        return self.kubectl("apply", "-f", path)

    def pods(self, job=None, ns="default"):
        q = f"?labelSelector=volcano.sh/job-name%3D{job}" if job else ""
        return self.items(f"/api/v1/namespaces/{ns}/pods{q}")

    def job(self, name, ns="default"):
        return self.get(f"/apis/batch.volcano.sh/v1alpha1/namespaces/{ns}/jobs/{name}")

    def job_phase(self, name, ns="default"):
        j = self.job(name, ns)
        return (j or {}).get("status", {}).get("state", {}).get("phase")

    def node(self, name):
        return self.get(f"/api/v1/nodes/{name}")

    def node_ready(self, name):
        n = self.node(name)
        for c in (n or {}).get("status", {}).get("conditions", []):
            if c.get("type") == "Ready":
                return c.get("status") == "True"
        return False

    def log(self, pod, ns="default"):
        status, body = self.request("GET", f"/api/v1/namespaces/{ns}/pods/{pod}/log")
        return body.decode() if status == 200 and isinstance(body, bytes) else ""

    # ---- waiting ----

    def wait(self, predicate, what, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def start_etna_server(etna, data, listen="127.0.0.1:0", args=(), log_path=None):
    """Starts `etna server --data-dir DATA --listen LISTEN ARGS...` and waits for the line that
    says where it serves; returns (process, port). Its output goes to `log_path` (appended)."""
    log = open(log_path or data + ".log", "ab")
    proc = subprocess.Popen([etna, "server", "--data-dir", data, "--listen", listen] +
                            list(args), stdout=subprocess.PIPE, stderr=log)
    for line in proc.stdout:
        log.write(line)
        log.flush()
        m = re.search(rb"serving https://[^:\s]+:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    raise RuntimeError("etna server did not start")


def rss_mb(pid):
    """The resident memory (VmRSS) of process `pid` in MiB, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def h100_profile(count):
    """A cluster profile of `count` 8-GPU H100 nodes with NVSwitch under one switch."""
    return f"""
nodeGroups:
- name: h100
  count: {count}
  cpu: "128"
  memory: 1Ti
  switch: sw-a
  gpus: {{model: NVIDIA-H100-80GB-HBM3, count: 8, memoryMiB: 81559, nvlink: nvswitch}}
"""


def worker_job(name, script, replicas=1, gpus=1, spec=None, task=None, env=None, grace=10):
    """A Volcano Job (as JSON, which kubectl applies like YAML) of one task "worker": `replicas`
    busybox pods running `sh -c script` with `gpus` GPUs each. `spec` and `task` add fields to
    the job's spec and to the task; `env` is the container's env list."""
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c", script],
                 "resources": {"requests": {"cpu": "1", "memory": "1Gi",
                                            "nvidia.com/gpu": str(gpus)},
                               "limits": {"nvidia.com/gpu": str(gpus)}}}
    if env:
        container["env"] = env
    worker = {"name": "worker", "replicas": replicas, **(task or {}),
              "template": {"spec": {"restartPolicy": "Never",
                                    "terminationGracePeriodSeconds": grace,
                                    "containers": [container]}}}
    return json.dumps({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                       "metadata": {"name": name, "namespace": "default"},
                       "spec": {**(spec or {}), "tasks": [worker]}})


def kill_processes_mentioning(text):
    """SIGKILLs every process whose command line contains `text`, with its process group (a
    shim's container runs in the shim's group); no procps needed."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            if text in cmdline and int(pid) != os.getpid():
                group = os.getpgid(int(pid))
                if group != os.getpgrp():
                    os.killpg(group, signal.SIGKILL)
                os.kill(int(pid), signal.SIGKILL)
        except (OSError, ValueError):
            pass


def check(condition, message):
    if not condition:
        raise AssertionError(message)
