#!/usr/bin/python3
"""High availability end to end: a three-member etcd cluster, two `etna server`s on it, two
schedulers and two controller managers with leader election (short durations), four agents;
every daemon is given both servers (--server A,B). Jobs are submitted through both servers while
  - the leading scheduler is SIGKILLed: the standby takes the Lease once it has seen it
    unrenewed for the lease duration, and the stream keeps being scheduled;
  - the leading controller manager, then server A and one etcd member are SIGKILLed (and
    restarted): the standby takes over, the daemons and agents go on through server B, and every
    job completes;
  - every job completes with exactly its pods, and no GPU is ever held by two live pods (polled
    while it runs, and over every pod ever bound: no two that ran at once share a GPU);
  - a leader whose only server sits behind a TCP proxy that goes dark stops acting before the
    standby takes its Lease (the two moments, as the logs show them, are compared), exits with
    code 1, and the jobs go on.
Prints the failover times measured: kill -> Lease taken -> first bind (scheduler) or first
pods made (controller manager) by the new leader.

Usage: ha_test.py ETNA_BINARY
"""
import os
import datetime
import re
import shutil
import tempfile
import signal
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, h100_profile, worker_job  # noqa: E402
from etcd import EtcdCluster, free_port  # noqa: E402
from faults_test import GpuWatch  # noqa: E402
from tcp_proxy import TcpProxy  # noqa: E402

NODES = [f"h100-{i}" for i in range(4)]
LEASE_S = 4
ELECTION = ["--leader-elect-lease-duration", f"{LEASE_S}s", "--leader-elect-renew-deadline",
            "3s", "--leader-elect-retry-period", "500ms"]
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"


def holder(c, lease):
    body = c.get(f"{LEASES}/{lease}")
    return (body or {}).get("spec", {}).get("holderIdentity", "")


def identity_of(c, name):
    """The identity process `name` announced when it took a Lease, or None."""
    log = open(os.path.join(c.work, f"{name}.log"), errors="replace").read()
    m = re.search(r"leading \(Lease \S+, identity (\S+)\)", log)
    return m.group(1) if m else None


def leader(c, daemon, lease):
    """Which of `daemon` and `daemon`-2 holds `lease` (waits until one does)."""
    def find():
        h = holder(c, lease)
        for name in (daemon, f"{daemon}-2"):
            if h and identity_of(c, name) == h:
                return name
        return None
    return c.wait(find, f"a {daemon} leading")


class HaCluster(Cluster):
    """Cluster whose server A is joined by server B on the same etcd (a copy of A's certificates
    and tokens) before any daemon starts, and whose daemons and agents get both URLs."""

    def __init__(self, etna, etcd, **kwargs):
        # Node leases of 10 s: the agents ride out server A's and an etcd member's deaths on
        # server B without fencing their pods (with 3 s they fence at 2.25 s, which a loaded
        # 2-core machine can take to fail over).
        super().__init__(etna, h100_profile(len(NODES)), NODES, server_args=etcd.client_flags(),
                         lease_seconds=10, **kwargs)
        self.etcd = etcd
        self.port_b = free_port()

    def start_server(self):
        first = self.port is None
        super().start_server()
        if not first:
            return
        self.data_b = os.path.join(self.work, "server-b")
        shutil.copytree(self.data, self.data_b)
        self.start_server_b()
        servers = f"https://127.0.0.1:{self.port},https://127.0.0.1:{self.port_b}"
        self.daemon_args += ["--server", servers]
        self.agent_args += ["--server", servers]
        self.kubeconfig_b = os.path.join(self.data_b, "kubeconfig")

    def start_server_b(self):
        self.start("server-b", ["server", "--data-dir", self.data_b, "--listen",
                                f"127.0.0.1:{self.port_b}"] + self.etcd.client_flags())
        log = os.path.join(self.work, "server-b.log")
        self.wait(lambda: "serving https://" in open(log).read(), "server b serving")


def submit(c, kubeconfigs, names):
    for i, n in enumerate(names):
        path = os.path.join(c.work, f"{n}.json")
        with open(path, "w") as f:
            f.write(worker_job(n, "sleep 1", replicas=2, gpus=2, grace=2,
                               spec={"minAvailable": 2}))
        c.kubectl("--kubeconfig", kubeconfigs[i % len(kubeconfigs)], "apply", "-f", path)


def bound(c):
    return sum(1 for p in c.items("/api/v1/pods") if p["spec"].get("nodeName"))


def seconds(stamp):
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def gpu_clashes_over_all_binds(c):
    """Over every pod ever bound (the jobs' pods are kept): two pods given the same GPU of a node
    whose run times (startTime to the container's finishedAt) overlap. Returns the clashes and
    how many pods were checked."""
    runs = []
    for p in c.items("/api/v1/pods"):
        node = p["spec"].get("nodeName")
        ids = p["metadata"].get("annotations", {}).get("etna.io/gpu-ids", "")
        start = p["status"].get("startTime")
        ends = [cs.get("state", {}).get("terminated", {}).get("finishedAt")
                for cs in p["status"].get("containerStatuses", [])]
        if not (node and ids and start and ends and all(ends)):
            continue
        runs.append((node, set(ids.split(",")), seconds(start), max(map(seconds, ends)),
                     p["metadata"]["name"]))
    clashes = [(a[4], b[4]) for i, a in enumerate(runs) for b in runs[i + 1:]
               if a[0] == b[0] and a[1] & b[1] and a[2] < b[3] and b[2] < a[3]]
    return clashes, len(runs)


def log_has(c, name, text):
    return text in open(os.path.join(c.work, f"{name}.log"), errors="replace").read()


def partitioned_leader_stops_first(c):
    """A leader cut off from the servers (its only server behind a TCP proxy that goes dark)
    stops acting before a standby could take its Lease: the stop shows in its log before the
    standby's `leading` line, then it exits with code 1, and the jobs go on."""
    proxy = TcpProxy(c.port_b)
    try:
        cut_off = ["scheduler", "--kubeconfig", c.kubeconfig_b, "--listen", "127.0.0.1:0",
                   "--period", c.period, "--server", f"https://127.0.0.1:{proxy.port}"] + ELECTION
        c.start("scheduler-3", cut_off)
        c.wait(lambda: log_has(c, "scheduler-3", "etna scheduler: ready"), "scheduler-3 ready")
        for name in [n for n in ("scheduler", "scheduler-2") if n in c.procs]:
            c.stop(name)  # SIGTERM: it lets the Lease go
        c.wait(lambda: identity_of(c, "scheduler-3") == holder(c, "etna-scheduler"),
               "scheduler-3 leading")
        c.start("scheduler-4", ["scheduler", "--kubeconfig", c.kubeconfig_b, "--listen",
                                "127.0.0.1:0", "--period", c.period] + ELECTION)
        c.wait(lambda: log_has(c, "scheduler-4", "etna scheduler: ready"), "scheduler-4 ready")
        jobs = [f"d-{i}" for i in range(6)]
        submit(c, [c.kubeconfig_b], jobs[:3])
        c.wait(lambda: all(c.job_phase(n) == "Completed" for n in jobs[:3]),
               "jobs scheduled by the leader behind the proxy", timeout=60)
        cut = time.monotonic()
        proxy.partition()
        submit(c, [c.kubeconfig_b], jobs[3:])
        stopped = leading = None
        while stopped is None or leading is None:
            now = time.monotonic()
            check(now - cut < 60, "no takeover within 60 s of the partition")
            if stopped is None and log_has(c, "scheduler-3", "within the renew deadline: stopped"):
                stopped = now
            if leading is None and identity_of(c, "scheduler-4"):
                leading = now
            time.sleep(0.02)
        check(stopped < leading, f"the cut-off leader stopped {stopped - cut:.2f} s after the "
              f"cut, after the standby took over ({leading - cut:.2f} s)")
        code = c.procs["scheduler-3"].wait(timeout=90)
        check(code == 1, f"the cut-off leader exited with {code}, not 1")
        proxy.heal()
        for n in jobs:
            c.wait(lambda n=n: c.job_phase(n) == "Completed", f"{n} Completed", timeout=120)
        print(f"partition: the cut-off leader stopped acting {stopped - cut:.1f} s after the "
              f"cut, the standby took over {leading - cut:.1f} s after it (renew deadline 3 s, "
              f"lease {LEASE_S} s)", flush=True)
    finally:
        proxy.close()


def main():
    etna = sys.argv[1]
    work = tempfile.mkdtemp(prefix="etna-ha-etcd-")
    etcd = EtcdCluster(3, work, fsync=False)
    try:
        etcd.move_leader_off(0)  # while nothing runs: a leadership transfer drops writes

        with HaCluster(etna, etcd, daemon_args=list(ELECTION)) as c:
            for d in ("scheduler", "controllers"):
                extra = ["--period", c.period] if d == "scheduler" else ["--lease-grace-seconds",
                                                                         "1"]
                c.start(f"{d}-2", [d, "--kubeconfig", c.kubeconfig_b, "--listen", "127.0.0.1:0"] +
                        extra + c.daemon_args)
            kubeconfigs = [c.kubeconfig, c.kubeconfig_b]
            watch = GpuWatch(c)
            watch.start()

            # The leading scheduler dies mid-stream.
            first = [f"a-{i}" for i in range(8)]
            submit(c, kubeconfigs, first)
            lead = leader(c, "scheduler", "etna-scheduler")
            c.wait(lambda: bound(c) >= 4, "first binds")
            old = holder(c, "etna-scheduler")
            killed = time.monotonic()
            c.stop(lead, signal.SIGKILL)
            second = [f"b-{i}" for i in range(8)]
            submit(c, kubeconfigs, second)
            before = bound(c)
            c.wait(lambda: holder(c, "etna-scheduler") not in ("", old), "the standby's Lease",
                   timeout=30)
            taken = time.monotonic()
            c.wait(lambda: bound(c) > before, "a bind by the new leader", timeout=30)
            first_bind = time.monotonic()
            check(taken - killed >= LEASE_S - 1,
                  f"the Lease moved {taken - killed:.1f} s after the kill, before it expired")
            print(f"scheduler failover: Lease taken {taken - killed:.1f} s after kill -9, first "
                  f"bind by the new leader {first_bind - killed:.1f} s after it "
                  f"(lease duration {LEASE_S} s)", flush=True)

            # The leading controller manager, server A and an etcd member die; everyone goes
            # on through server B (this test reads through B from here on).
            lead = leader(c, "controllers", "etna-controllers")
            old = holder(c, "etna-controllers")
            c.stop(lead, signal.SIGKILL)
            killed = time.monotonic()
            c.port = c.port_b  # before A dies: the GPU watch polls through c.port
            c.stop("server", signal.SIGKILL)
            # Member 0, the one server B's etcd client uses, dies as a follower: a write caught
            # in an etcd leader election waits out etcd's request timeout (7 s), longer than
            # these leases' 3 s renew deadline (docs/ha.md).
            etcd.move_leader_off(0)
            etcd.kill(0)
            third = [f"c-{i}" for i in range(4)]
            submit(c, [c.kubeconfig_b], third)
            etcd.restart(0)
            c.wait(lambda: holder(c, "etna-controllers") not in ("", old),
                   "the standby controller manager's Lease", timeout=30)
            taken = time.monotonic()
            c.wait(lambda: any(c.pods(n) for n in third), "pods made by the new leader",
                   timeout=60)
            print(f"controller manager failover: Lease taken {taken - killed:.1f} s after kill -9, "
                  f"first pods made by the new leader {time.monotonic() - killed:.1f} s after it",
                  flush=True)
            for n in first + second + third:
                c.wait(lambda n=n: c.job_phase(n) == "Completed", f"{n} Completed", timeout=120)
                pods = c.pods(n)
                check(len(pods) == 2, f"{n} has {len(pods)} pods, not 2")
            print(f"controllers, server A and etcd member failover: every job Completed "
                  f"{time.monotonic() - killed:.1f} s after kill -9 of the leading controller "
                  "manager, server A and an etcd member", flush=True)
            watch.stop.set()
            watch.join()
            check(watch.polls > 0, "the GPU watch never ran")
            check(not watch.clashes, f"GPUs held twice: {watch.clashes[:5]}")
            clashes, checked = gpu_clashes_over_all_binds(c)
            check(checked >= 2 * len(first + second + third),
                  f"only {checked} finished pods had GPUs and run times to compare")
            check(not clashes, f"pods that ran at once on one GPU: {clashes[:5]}")

            # Exactly one live scheduler leads, and says so.
            live = [n for n in ("scheduler", "scheduler-2") if n in c.procs]
            status = [re.search(r'leader_election_master_status\{name="etna-scheduler"\} (\S+)',
                                c.metrics(n)).group(1) for n in live]
            check(status == ["1"], f"leader_election_master_status of {live}: {status}")
            url = re.search(r"metrics on (http://\S+)/metrics",
                            open(os.path.join(c.work, f"{live[0]}.log")).read()).group(1)
            with urllib.request.urlopen(url + "/readyz?verbose", timeout=10) as r:
                body = r.read().decode()
            check("[+]leader-election leading (Lease kube-system/etna-scheduler)" in body,
                  f"/readyz?verbose of the leader: {body}")
            partitioned_leader_stops_first(c)
        print("PASS ha_test")
    finally:
        etcd.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
