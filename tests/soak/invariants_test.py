#!/usr/bin/env python3
"""Unit tests of the soak's invariant checker (invariants.py) on synthetic event sequences: a
clean run with every kind of churn the soak makes, then one sequence per violation kind, each of
which must be reported as exactly that kind. No etna binary, no clock: times are given."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from invariants import InvariantChecker  # noqa: E402


def pod(name, uid, node="", gpus="", phase="Pending", group=None, deleting=False):
    annotations = {}
    if gpus:
        annotations["etna.io/gpu-ids"] = gpus
    if group:
        annotations["scheduling.k8s.io/group-name"] = group
    meta = {"name": name, "namespace": "default", "uid": uid, "annotations": annotations}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    spec = {"nodeName": node} if node else {}
    return {"metadata": meta, "spec": spec, "status": {"phase": phase}}


def podgroup(name, min_member):
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"minMember": min_member}}


def job(name, phase=None):
    status = {"state": {"phase": phase}} if phase else {}
    return {"metadata": {"name": name, "namespace": "default"}, "status": status}


class Feed:
    """Feeds a checker one event after another, one second apart."""

    def __init__(self, **options):
        self.checker = InvariantChecker(**options)
        self.t = 0.0
        for name in ("scheduler", "agent-n0", "agent-n1"):
            self.checker.on_component(0.0, name, True)

    def at(self, t):
        self.t = t
        self.checker.tick(t)
        return self

    def ev(self, kind, event_type, obj):
        self.t += 1
        self.checker.on_event(self.t, kind, event_type, obj)
        self.checker.tick(self.t)
        return self

    def gang_job(self, name, pods, min_member):
        """A job whose `pods` (name, uid, node, gpus) bind together, run and succeed."""
        self.checker.on_job_acknowledged(self.t, f"default/{name}")
        self.ev("Job", "ADDED", job(name))
        self.ev("PodGroup", "ADDED", podgroup(f"{name}-pg", min_member))
        for n, uid, _, _ in pods:
            self.ev("Pod", "ADDED", pod(n, uid, group=f"{name}-pg"))
        for n, uid, node, gpus in pods:
            self.ev("Pod", "MODIFIED", pod(n, uid, node, gpus, "Pending", f"{name}-pg"))
        for n, uid, node, gpus in pods:
            self.ev("Pod", "MODIFIED", pod(n, uid, node, gpus, "Running", f"{name}-pg"))
        self.ev("Job", "MODIFIED", job(name, "Running"))
        return self

    def finish_pods(self, name, pods, phase="Succeeded"):
        for n, uid, node, gpus in pods:
            self.ev("Pod", "MODIFIED", pod(n, uid, node, gpus, phase, f"{name}-pg"))
        return self

    def delete_pods(self, name, pods):
        for n, uid, node, gpus in pods:
            self.ev("Pod", "MODIFIED", pod(n, uid, node, gpus, "Running", f"{name}-pg", True))
        for n, uid, node, gpus in pods:
            self.ev("Pod", "DELETED", pod(n, uid, node, gpus, "Running", f"{name}-pg", True))
        return self

    def finish(self):
        return self.checker.finish(self.t + 1)


A = [("a-w-0", "ua0", "n0", "0,1"), ("a-w-1", "ua1", "n0", "2,3")]
B = [("b-w-0", "ub0", "n0", "0,1")]  # a's first pod's GPUs, once a has let go of them


class CleanRun(unittest.TestCase):
    def test_churn_without_violations(self):
        f = Feed()
        # a runs and completes; b then reuses its GPUs
        f.gang_job("a", A, 2).finish_pods("a", A).ev("Job", "MODIFIED", job("a", "Completed"))
        f.gang_job("b", B, 1)
        # b is preempted: deleted (still holding while it terminates), then gone
        f.delete_pods("b", B)
        f.ev("Job", "MODIFIED", job("b", "Pending"))
        # c: a gang of 2 that loses one member to a lost node: no bind, so no partial-gang
        c = [("c-w-0", "uc0", "n1", "0"), ("c-w-1", "uc1", "n1", "1")]
        f.gang_job("c", c, 2)
        f.ev("Pod", "MODIFIED", pod("c-w-1", "uc1", "n1", "1", "Failed", "c-pg"))
        f.ev("Pod", "DELETED", pod("c-w-1", "uc1", "n1", "1", "Failed", "c-pg"))
        # b's replacement takes GPUs 0,1 of n0 again: a and b's first pod let them go
        f.ev("Pod", "ADDED", pod("b-w-0", "ub0b", group="b-pg"))
        f.ev("Pod", "MODIFIED", pod("b-w-0", "ub0b", "n0", "0,1", "Running", "b-pg"))
        f.ev("Job", "MODIFIED", job("b", "Running"))
        # an elastic job: minMember 1, members bind one at a time
        f.checker.on_job_acknowledged(f.t, "default/e")
        f.ev("PodGroup", "ADDED", podgroup("e-pg", 1))
        f.ev("Pod", "ADDED", pod("e-w-0", "ue0", "n1", "2", "Running", "e-pg"))
        f.ev("Pod", "ADDED", pod("e-w-1", "ue1", "n1", "3", "Running", "e-pg"))
        f.ev("Job", "ADDED", job("e", "Running"))
        # a job the soak deleted before it ever ran, and one that completed and was removed by TTL
        f.checker.on_job_acknowledged(f.t, "default/d")
        f.ev("Job", "ADDED", job("d", "Pending"))
        f.checker.on_job_delete_requested(f.t, "default/d")
        f.ev("Job", "DELETED", job("d", "Pending"))
        f.checker.on_job_acknowledged(f.t, "default/ttl")
        f.ev("Job", "ADDED", job("ttl", "Completed"))
        f.ev("Job", "DELETED", job("ttl", "Completed"))
        # a killed agent: the deleted pod's process lives on until the agent is back
        f.checker.on_component(f.t, "agent-n1", False)
        f.checker.on_processes(f.t + 30, {"uc1": ("n1", ("1",), 100)})
        f.checker.on_component(f.t + 31, "agent-n1", True)
        f.checker.on_processes(f.t + 35, {"uc0": ("n1", ("0",), 101)})
        f.t += 35
        # steady memory
        for i in range(30):
            f.checker.on_rss(i * 5.0, "server", 100 + (i % 3))
        self.assertEqual(f.finish(), [])


class EachViolation(unittest.TestCase):
    def assertOnly(self, violations, kind):
        self.assertEqual([v.kind for v in violations], [kind], violations)

    def test_gpu_held_by_two_pods(self):
        f = Feed().gang_job("a", A, 2)
        # b bound to GPUs 0,1 of n0 while a-w-0 still runs there
        f.gang_job("b", B, 1)
        self.assertOnly(f.finish(), "gpu-double-hold")

    def test_gpu_of_a_terminating_pod_given_away(self):
        f = Feed().gang_job("a", A, 2)
        f.ev("Pod", "MODIFIED", pod("a-w-0", "ua0", "n0", "0,1", "Running", "a-pg", True))
        f.gang_job("b", B, 1)
        self.assertOnly(f.finish(), "gpu-double-hold")

    def test_gpu_in_two_live_processes(self):
        f = Feed()
        f.checker.on_processes(5.0, {"ua0": ("n0", ("0", "1"), 10), "ub0": ("n0", ("1",), 11)})
        self.assertOnly(f.finish(), "gpu-double-use")

    def test_partial_gang_past_its_grace(self):
        f = Feed(gang_grace_s=30)
        f.checker.on_job_acknowledged(0, "default/a")
        f.ev("Job", "ADDED", job("a", "Pending"))
        f.ev("PodGroup", "ADDED", podgroup("a-pg", 2))
        f.ev("Pod", "ADDED", pod("a-w-0", "ua0", group="a-pg"))
        f.ev("Pod", "ADDED", pod("a-w-1", "ua1", group="a-pg"))
        f.ev("Pod", "MODIFIED", pod("a-w-0", "ua0", "n0", "0", "Running", "a-pg"))
        f.ev("Job", "MODIFIED", job("a", "Running"))
        bound_at = f.t - 1
        # the scheduler is down 20 s of it: that time does not count
        f.checker.on_component(f.t + 1, "scheduler", False)
        f.checker.on_component(f.t + 21, "scheduler", True)
        f.at(bound_at + 45)
        self.assertEqual(f.checker.violations, [], "reported within 30 s of uptime")
        f.at(bound_at + 52)
        self.assertOnly(f.finish(), "partial-gang")

    def test_gang_completed_within_its_grace_is_fine(self):
        f = Feed(gang_grace_s=30)
        f.ev("PodGroup", "ADDED", podgroup("a-pg", 2))
        f.ev("Pod", "ADDED", pod("a-w-0", "ua0", "n0", "0", "Running", "a-pg"))
        f.at(f.t + 20)
        f.ev("Pod", "ADDED", pod("a-w-1", "ua1", "n0", "1", "Running", "a-pg"))
        f.at(f.t + 60)
        self.assertEqual(f.finish(), [])

    def test_job_lost(self):
        f = Feed()
        f.checker.on_job_acknowledged(0, "default/stuck")
        f.ev("Job", "ADDED", job("stuck", "Pending"))
        f.checker.on_job_acknowledged(f.t, "default/never-seen")
        self.assertEqual([v.kind for v in f.finish()], ["job-lost", "job-lost"])

    def test_job_vanished_without_being_terminal(self):
        f = Feed()
        f.checker.on_job_acknowledged(0, "default/gone")
        f.ev("Job", "ADDED", job("gone", "Running"))
        f.ev("Job", "DELETED", job("gone", "Running"))
        self.assertOnly(f.finish(), "job-lost")

    def test_pod_event_after_its_deletion(self):
        f = Feed().gang_job("b", B, 1).delete_pods("b", B)
        f.ev("Pod", "MODIFIED", pod("b-w-0", "ub0", "n0", "0,1", "Running", "b-pg"))
        self.assertOnly(f.finish(), "pod-after-delete")

    def test_process_after_its_pods_deletion(self):
        f = Feed().gang_job("b", B, 1).delete_pods("b", B)
        deleted_at = f.t
        f.checker.on_processes(deleted_at + 5, {"ub0": ("n0", ("0", "1"), 42)})
        self.assertEqual(f.checker.violations, [], "reported within the orphan grace")
        f.checker.on_processes(deleted_at + 11, {"ub0": ("n0", ("0", "1"), 42)})
        self.assertOnly(f.finish(), "process-after-delete")

    def test_memory_growing(self):
        f = Feed()
        for i in range(30):
            f.checker.on_rss(i * 5.0, "server", 100 + 8 * i)  # 100 MB -> 332 MB
            f.checker.on_rss(i * 5.0, "scheduler", 60)
        violations = f.finish()
        self.assertOnly(violations, "memory-growth")
        self.assertIn("server", violations[0].message)
        self.assertEqual(f.checker.max_rss("server"), 332)


if __name__ == "__main__":
    unittest.main()
