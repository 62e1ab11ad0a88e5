#!/usr/bin/python3
"""A scheduler and a controller manager elected with kube-scheduler's default durations (lease
15 s, renew deadline 10 s, retry 2 s) ride through the loss of etcd's Raft leader. etcd 3.4 holds
every write a follower receives in the second or so after its leader dies for its request
timeout (7 s), and takes new writes once it has elected another leader, about 2.5 s after the
loss; a leader that waited on one renewal could pass its deadline, so it sends one every retry
period (client/leader_election.h).

Three etcd members, one `etna server` on them, the daemons with leader election at its defaults,
one agent. The etcd leader is SIGKILLed; for 14 s (past the renew deadline) neither daemon may
step down, and the scheduler's Lease must be renewed meanwhile; then the member comes back and a
job submitted afterwards completes. Prints when the first renewal after the kill was written.

Usage: ha_etcd_leader_test.py ETNA_BINARY
"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, h100_profile, worker_job  # noqa: E402
from etcd import EtcdCluster  # noqa: E402
from ha_test import LEASES, log_has, seconds  # noqa: E402

RENEW_DEADLINE_S = 10  # kube-scheduler's default, which the daemons keep here


def renew_time(c):
    """The scheduler Lease's spec.renewTime as epoch seconds (None when unreadable)."""
    try:
        status, body = c.request("GET", f"{LEASES}/etna-scheduler")
    except OSError:
        return None
    if status != 200:
        return None
    return seconds(body.get("spec", {}).get("renewTime", ""))


def main():
    etna = sys.argv[1]
    work = tempfile.mkdtemp(prefix="etna-ha-etcd-leader-")
    etcd = EtcdCluster(3, work, fsync=False)
    try:
        with Cluster(etna, h100_profile(1), ["h100-0"], server_args=etcd.client_flags(),
                     lease_seconds=20) as c:
            for name in ("scheduler", "controllers"):
                c.wait(lambda n=name: log_has(c, n, "leading (Lease"), f"{name} leading",
                       timeout=60)
            c.wait(lambda: renew_time(c) is not None, "the scheduler's Lease")
            lead = etcd.leader()
            killed = time.time()
            etcd.kill(lead)
            renewed_after = None
            while time.time() - killed < RENEW_DEADLINE_S + 4:
                for name in ("scheduler", "controllers"):
                    check(not log_has(c, name, "stopped acting"),
                          f"the {name} stepped down {time.time() - killed:.1f} s after etcd's "
                          "leader was killed")
                    check(c.procs[name].poll() is None, f"the {name} exited")
                t = renew_time(c)
                if renewed_after is None and t is not None and t > killed:
                    renewed_after = t - killed
                time.sleep(0.2)
            check(renewed_after is not None,
                  f"no renewal of the scheduler's Lease was written within "
                  f"{RENEW_DEADLINE_S + 4} s of etcd's leader being killed")
            etcd.restart(lead)
            c.apply(worker_job("after", "true"))
            c.wait(lambda: c.job_phase("after") == "Completed", "the job after the outage",
                   timeout=90)
            print(f"etcd leader loss: the scheduler's Lease was renewed {renewed_after:.1f} s "
                  f"after etcd's leader was killed (renew deadline {RENEW_DEADLINE_S} s); "
                  "neither daemon stepped down", flush=True)
        print("PASS ha_etcd_leader_test")
    finally:
        etcd.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
