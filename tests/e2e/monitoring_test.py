#!/usr/bin/python3
"""End to end: Debian's Prometheus scrapes `etna dev` with the shipped configuration
(deploy/prometheus), loads the shipped alert rules, and a query of the GPUs allocated per queue
agrees with what the API says the running pods hold. Every component's real /metrics passes
`promtool check metrics` (parse errors fail; lint notes about Volcano's and DCGM's own names
do not) and every expression of the shipped rules and dashboards uses a family we emit
(tests/deploy/check_exprs.py).

Usage: monitoring_test.py ETNA_BINARY REPO_DIR
"""
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dev import kill_containers  # noqa: E402

KUBECTL = os.environ.get("KUBECTL", "kubectl")

JOBS = """
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: research}
spec: {weight: 1}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: train, namespace: default}
spec:
  queue: research
  minAvailable: 2
  tasks:
    - name: worker
      replicas: 2
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: main
              image: busybox
              command: [sh, -c, "sleep 600"]
              resources: {limits: {nvidia.com/gpu: 2}}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: serve, namespace: default}
spec:
  queue: default
  tasks:
    - name: server
      replicas: 1
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: main
              image: busybox
              command: [sh, -c, "sleep 600"]
              resources: {limits: {nvidia.com/gpu: 1}}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait(what, check, timeout=90):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except (OSError, ValueError, KeyError) as e:  # not up yet
            last = e
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


class Dev:
    """`etna dev` in a temporary data dir."""

    def __init__(self, etna, work, prometheus_url):
        self.work = work
        self.data = os.path.join(work, "dev")
        self.log = open(os.path.join(work, "dev.log"), "w+")
        self.proc = subprocess.Popen(
            [etna, "dev", "--data-dir", self.data, "--listen", "127.0.0.1:0",
             "--period", "200ms", "--prometheus-url", prometheus_url],
            stdout=self.log, stderr=subprocess.STDOUT)
        wait("etna dev: ready", lambda: "etna dev: ready" in open(self.log.name).read()
             or self.proc.poll() is not None, timeout=60)
        assert self.proc.poll() is None, open(self.log.name).read()
        self.kubeconfig = os.path.join(self.data, "kubeconfig")
        self.ca = os.path.join(self.data, "pki", "ca.crt")
        self.targets = os.path.join(self.data, "prometheus-targets.json")
        groups = json.load(open(self.targets))
        self.server = [g["targets"][0] for g in groups
                       if g["labels"]["job"] == "etna-apiserver"][0]
        self.agents = {g["labels"]["Hostname"]: g["targets"][0] for g in groups
                       if g["labels"]["job"] == "etna-agents"}
        self.tls = ssl.create_default_context(cafile=self.ca)

    def kubectl(self, *args, stdin=None):
        r = subprocess.run([KUBECTL, "--kubeconfig", self.kubeconfig] + list(args), input=stdin,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, f"kubectl {args}: {r.stderr}"
        return r.stdout

    def api_get(self, path):
        """GET of the dev's API server as its admin; the JSON answer."""
        token = open(os.path.join(self.data, "tokens.csv")).read().split(",")[0]
        request = urllib.request.Request(f"https://{self.server}{path}",
                                         headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, context=self.tls, timeout=10) as r:
            return json.loads(r.read())

    def metrics(self, address, tls):
        url = f"{'https' if tls else 'http'}://{address}/metrics"
        with urllib.request.urlopen(url, context=self.tls if tls else None, timeout=10) as r:
            return r.read().decode()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        kill_containers(self.data)


class Prometheus:
    """Debian's prometheus with deploy/prometheus's configuration pointed at `dev`."""

    def __init__(self, repo, work, dev, port=None):
        home = os.path.join(work, "prometheus")
        shutil.copytree(os.path.join(repo, "deploy", "prometheus"), home)
        path = os.path.join(home, "prometheus.yml")
        config = yaml.safe_load(open(path))
        config["global"]["scrape_interval"] = "1s"
        config["global"]["evaluation_interval"] = "1s"
        jobs = []
        for job in config["scrape_configs"]:
            # Under etna dev the API server's /metrics carries the scheduler's and controllers'
            # families (prometheus.yml says to delete their jobs there).
            if job["job_name"] in ("etna-scheduler", "etna-controllers"):
                continue
            if job["job_name"] == "etna-apiserver":
                job["tls_config"]["ca_file"] = dev.ca
                job["static_configs"] = [{"targets": [dev.server]}]
            jobs.append(job)
        config["scrape_configs"] = jobs
        yaml.safe_dump(config, open(path, "w"))
        os.symlink(dev.targets, os.path.join(home, "targets", "etna-dev.json"))
        self.url = f"http://127.0.0.1:{port or free_port()}"
        self.log = open(os.path.join(work, "prometheus.log"), "w+")
        self.proc = subprocess.Popen(
            ["prometheus", f"--config.file={path}",
             f"--storage.tsdb.path={os.path.join(work, 'tsdb')}",
             f"--web.listen-address={self.url[len('http://'):]}"],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=home)
        wait("prometheus ready", lambda: self.get("/-/ready") is not None)

    def get(self, path, **params):
        url = self.url + path + ("?" + urllib.parse.urlencode(params) if params else "")
        with urllib.request.urlopen(url, timeout=10) as r:
            body = r.read().decode()
        return json.loads(body) if path.startswith("/api/") else body

    def query(self, expr):
        reply = self.get("/api/v1/query", query=expr)
        assert reply["status"] == "success", reply
        return reply["data"]["result"]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def promtool_check(name, text, work):
    """promtool check metrics: exit 1 is a parse error; 3 lists lint notes on the names Volcano
    and dcgm-exporter chose (milliseconds, camelCase OnSession, counters without _total), which
    etna keeps for compatibility."""
    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                       text=True)
    if r.returncode not in (0, 3):
        path = os.path.join(work, name + ".prom")
        open(path, "w").write(text)
        raise AssertionError(f"promtool check metrics failed on {name} ({path}):\n{r.stdout}"
                             f"{r.stderr}")


def api_gpus_by_queue(dev):
    """GPUs held by running pods, per queue (the pods' volcano.sh/queue-name label)."""
    pods = json.loads(dev.kubectl("get", "pods", "-A", "-o", "json"))["items"]
    out = {}
    for p in pods:
        if p.get("status", {}).get("phase") != "Running" or not p["spec"].get("nodeName"):
            continue
        queue = p["metadata"].get("labels", {}).get("volcano.sh/queue-name", "default")
        gpus = 0
        for c in p["spec"]["containers"]:
            res = c.get("resources", {})
            gpus += int(res.get("limits", {}).get("nvidia.com/gpu", 0) or
                        res.get("requests", {}).get("nvidia.com/gpu", 0))
        out[queue] = out.get(queue, 0) + gpus
    return out


def main():
    etna, repo = sys.argv[1:3]
    if not shutil.which("prometheus") or not shutil.which("promtool"):
        print("FAIL: prometheus/promtool not installed (scripts/install-deps.sh installs them)")
        return 1
    work = tempfile.mkdtemp(prefix="etna-monitoring-")
    dev = prom = None
    try:
        prom_port = free_port()  # the dashboard's history asks this Prometheus
        dev = Dev(etna, work, f"http://127.0.0.1:{prom_port}")
        dev.kubectl("apply", "-f", "-", stdin=JOBS)
        wait("5 GPUs held by running pods",
             lambda: api_gpus_by_queue(dev) == {"research": 4, "default": 1})
        expected = api_gpus_by_queue(dev)

        # Every component's real output: parsable, and rich enough for the rules and dashboards.
        texts = {"apiserver": dev.metrics(dev.server, tls=True)}
        for node, address in sorted(dev.agents.items()):
            texts[f"agent-{node}"] = dev.metrics(address, tls=False)
        files = []
        for name, text in texts.items():
            promtool_check(name, text, work)
            path = os.path.join(work, name + ".prom")
            open(path, "w").write(text)
            files.append(path)
        r = subprocess.run([sys.executable, os.path.join(repo, "tests", "deploy", "check_exprs.py"),
                            "--deploy", os.path.join(repo, "deploy"), "--metrics"] + files,
                           capture_output=True, text=True)
        assert r.returncode == 0, f"check_exprs.py:\n{r.stdout}{r.stderr}"

        prom = Prometheus(repo, work, dev, port=prom_port)
        def all_up():
            up = prom.query("up")
            ok = len(up) == 1 + len(dev.agents) and all(s["value"][1] == "1" for s in up)
            return up if ok else None
        jobs = wait("every target up", all_up)
        assert {s["metric"]["job"] for s in jobs} == {"etna-apiserver", "etna-agents"}, jobs

        # The question operators ask: GPUs allocated per queue — Prometheus agrees with the API.
        def per_queue():
            result = prom.query('sum by (queue_name) (volcano_queue_allocated_scalar_resources'
                                '{resource="nvidia.com/gpu"}) / 1000')
            got = {s["metric"]["queue_name"]: float(s["value"][1]) for s in result}
            return got if all(got.get(q, 0) == n for q, n in expected.items()) else None
        got = wait("Prometheus' GPUs per queue to match the API", per_queue, timeout=60)
        print(f"GPUs allocated per queue: API {expected}, Prometheus {got}")

        # The dashboard's history (GET /ui/history) from this Prometheus, with utilization.
        def history():
            body = dev.api_get("/ui/history")
            last = body["samples"][-1] if body["samples"] else {}
            ok = body["source"] == "prometheus" and all(
                last.get("queues", {}).get(q, 0) == n for q, n in expected.items())
            return body if ok and "utilizationPercent" in last else None
        body = wait("the dashboard's history from Prometheus", history, timeout=60)
        print(f"dashboard history: {len(body['samples'])} samples, last {body['samples'][-1]}")

        # The agents' GPU series name the pod that holds each GPU.
        held = wait("GPU series with a pod label", lambda: prom.query(
            'count(DCGM_FI_DEV_GPU_UTIL{pod!=""})'))
        assert float(held[0]["value"][1]) == sum(expected.values()), held

        # The shipped rules load and evaluate.
        def rules_healthy():
            groups = prom.get("/api/v1/rules")["data"]["groups"]
            rules = [r for g in groups for r in g["rules"]]
            return len(rules) >= 8 and all(r["health"] == "ok" for r in rules) and rules
        rules = wait("every rule evaluated without error", rules_healthy, timeout=60)
        names = {r["name"] for r in rules}
        for alert in ["GPUUtilizationLow", "GPUMemoryUsageHigh", "GPUTemperatureHigh",
                      "GPUDeviceErrors", "GPUNotAvailable", "EtnaQueueStarving",
                      "EtnaJobPendingTooLong", "EtnaNodeNotReady"]:
            assert alert in names, f"{alert} not loaded: {sorted(names)}"
        print(f"PASS: {len(texts)} /metrics outputs checked, {len(rules)} rules healthy")
        return 0
    except BaseException:
        for log in [os.path.join(work, "dev.log"), os.path.join(work, "prometheus.log")]:
            if os.path.exists(log):
                print(f"---- {log} (tail)\n" + "".join(open(log).readlines()[-40:]))
        raise
    finally:
        if prom:
            prom.stop()
        if dev:
            dev.stop()
        subprocess.run(["pkill", "-f", work], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
