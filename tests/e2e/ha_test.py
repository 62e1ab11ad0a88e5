#!/usr/bin/python3
"""High availability end to end: a three-member etcd cluster, two `etna server`s on it, two
schedulers and two controller managers with leader election (short durations), four agents.
Jobs are submitted through both servers while
  - the leading scheduler is SIGKILLed: the standby takes the Lease once it has seen it
    unrenewed for the lease duration, and the stream keeps being scheduled;
  - the leading controller manager is SIGKILLed: the standby takes over and jobs complete;
  - every job completes with exactly its pods, and no GPU is ever held by two live pods.
Prints the failover times measured: kill -> Lease taken -> first bind by the new leader.

Usage: ha_test.py ETNA_BINARY
"""
import os
import re
import shutil
import signal
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, h100_profile, worker_job  # noqa: E402
from etcd import EtcdCluster  # noqa: E402
from faults_test import GpuWatch  # noqa: E402

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


def start_second_server(c, etcd):
    """Server b on the same etcd, with a copy of server a's certificates and tokens."""
    data_b = os.path.join(c.work, "server-b")
    shutil.copytree(c.data, data_b)
    c.start("server-b", ["server", "--data-dir", data_b, "--listen", "127.0.0.1:0"] +
            etcd.client_flags())
    log = os.path.join(c.work, "server-b.log")
    c.wait(lambda: re.search(r"serving https://127\.0\.0\.1:\d+", open(log).read()),
           "server b serving")
    return os.path.join(data_b, "kubeconfig")


def submit(c, kubeconfigs, names):
    for i, n in enumerate(names):
        path = os.path.join(c.work, f"{n}.json")
        with open(path, "w") as f:
            f.write(worker_job(n, "sleep 1", replicas=2, gpus=2, grace=2,
                               spec={"minAvailable": 2}))
        c.kubectl("--kubeconfig", kubeconfigs[i % 2], "apply", "-f", path)


def bound(c):
    return sum(1 for p in c.items("/api/v1/pods") if p["spec"].get("nodeName"))


def main():
    etna = sys.argv[1]
    profile = h100_profile(len(NODES))
    c = Cluster(etna, profile, NODES, daemon_args=ELECTION)
    os.makedirs(os.path.join(c.work, "etcd"))
    etcd = EtcdCluster(3, os.path.join(c.work, "etcd"), fsync=False)
    c.server_args = etcd.client_flags()
    try:
        with c:
            kubeconfig_b = start_second_server(c, etcd)
            for d in ("scheduler", "controllers"):
                extra = ["--period", c.period] if d == "scheduler" else ["--lease-grace-seconds",
                                                                         "1"]
                c.start(f"{d}-2", [d, "--kubeconfig", kubeconfig_b, "--listen", "127.0.0.1:0"] +
                        extra + ELECTION)
            kubeconfigs = [c.kubeconfig, kubeconfig_b]
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

            # The leading controller manager dies; the standby finishes the jobs.
            lead = leader(c, "controllers", "etna-controllers")
            c.stop(lead, signal.SIGKILL)
            killed = time.monotonic()
            third = [f"c-{i}" for i in range(4)]
            submit(c, kubeconfigs, third)
            for n in first + second + third:
                c.wait(lambda n=n: c.job_phase(n) == "Completed", f"{n} Completed", timeout=120)
                pods = c.pods(n)
                check(len(pods) == 2, f"{n} has {len(pods)} pods, not 2")
            print(f"controllers failover: every job Completed {time.monotonic() - killed:.1f} s "
                  "after kill -9 of the leading controller manager", flush=True)
            watch.stop.set()
            watch.join()
            check(watch.polls > 0, "the GPU watch never ran")
            check(not watch.clashes, f"GPUs held twice: {watch.clashes[:5]}")

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
        print("PASS ha_test")
    finally:
        etcd.stop()


if __name__ == "__main__":
    main()
