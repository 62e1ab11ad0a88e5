"""`etna dev` for end-to-end tests: started on a free port in a temporary directory, used with
kubectl as a user would, stopped (and its directory removed) on exit; its log is printed when
the test failed.

    with Dev(etna) as dev:
        dev.k("apply", "-f", "job.yaml")
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time

from containers import release_containers

KUBECTL = os.environ.get("KUBECTL", "kubectl")


class Dev:
    def __init__(self, etna, prefix="etna-dev-", args=(), work=None):
        """`work`: an existing directory to start on again (its pods are adopted); it is then
        left in place on exit."""
        self.etna = etna
        self.args = list(args)
        self.keep_work = work is not None
        self.leave_containers = False  # set: a later Dev on `work` adopts them
        self.work = work or tempfile.mkdtemp(prefix=prefix)
        self.kubeconfig = os.path.join(self.work, "kubeconfig")
        self.log_path = os.path.join(self.work, "dev.log")

    def __enter__(self):
        os.makedirs(self.work, exist_ok=True)
        self.log = open(self.log_path, "a+")
        self.log_start = self.log.tell()
        self.proc = subprocess.Popen(
            [self.etna, "dev", "--data-dir", self.work, "--listen", "127.0.0.1:0"] + self.args,
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while "etna dev: ready" not in self.output():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError("etna dev did not get ready:\n" + self.output())
            time.sleep(0.05)
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        if exc_type is not None:
            print(self.output()[-20000:])
        if not self.keep_work:
            shutil.rmtree(self.work, ignore_errors=True)
        return False

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=90)
        if not self.leave_containers:
            kill_containers(self.work)

    def output(self):
        with open(self.log_path) as f:
            f.seek(self.log_start)
            return f.read()

    def runnable_inference(self, examples):
        """The runnable inference example with its simulated load kept in this dev's directory
        (its LOAD_DIR), so that tests running at once do not share it; returns its path."""
        load = os.path.join(self.work, "load")
        os.makedirs(load, exist_ok=True)
        text = open(os.path.join(examples, "seed-inference-runnable.yaml")).read()
        path = os.path.join(self.work, "inference.yaml")
        with open(path, "w") as f:
            f.write(text.replace("/tmp/etna-bert-load", load))
        return path

    def set_load(self, total):
        """Sets the total GPU load the runnable inference example's replicas share."""
        path = os.path.join(self.work, "load", "total")
        with open(path + ".tmp", "w") as f:
            f.write(f"{total}\n")
        os.replace(path + ".tmp", path)

    def k(self, *args, timeout=120):
        """kubectl against this etna dev; fails the test on a non-zero exit."""
        r = subprocess.run([KUBECTL, "--kubeconfig", self.kubeconfig] + list(args),
                           capture_output=True, text=True, timeout=timeout)
        assert r.returncode == 0, f"kubectl {' '.join(args)}: {r.stdout}{r.stderr}"
        return r.stdout


def wait_for(predicate, what, timeout=90):
    """Polls `predicate` every 0.1 s until it is true; fails naming `what` after `timeout` s.
    Returns the time it became true."""
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.1)
    return time.monotonic()


def kill_containers(work):
    """etna dev leaves its pods' processes running for its next start; a test's are killed: the
    process group of every shim whose command line names the dev's directory `work`."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            continue
        if "agent-shim" in cmdline and work in cmdline:
            try:
                os.killpg(int(pid), signal.SIGKILL)
            except OSError:
                pass
    release_containers(work)
