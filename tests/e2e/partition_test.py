#!/usr/bin/python3
"""A real network partition (issue 17): each agent runs in a network namespace of its own,
joined to the host by a veth pair, and the server listens on the host's ends. A one-rank job
runs on node A; A's link is cut with `ip link set down`. A's agent must fence (stop the rank)
before the node controller declares A lost and the job is placed on node B, so that no two
copies of the rank ever run at once: each copy appends "<pod uid> <time>" to a shared file
every 50 ms, and their [first, last] intervals must not overlap. The link then comes back: A's
agent logs that it fenced and that it is back, A turns Ready again, and the rank runs on B only.

Needs root (ip netns); it fails, never skips, without it.
Usage: partition_test.py ETNA_BINARY
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, h100_profile, worker_job  # noqa: E402

PROFILE = h100_profile(2)
NODES = ["h100-0", "h100-1"]


def ip(*args):
    subprocess.run(["ip"] + list(args), check=True, capture_output=True)


class Namespaces:
    """One network namespace per node, its veth's host end <net>.1/30, its own end <net>.2."""

    def __init__(self):
        base = 2 * (os.getpid() % 100)
        self.ns, self.host_if, self.host_ip, self.node_ip = {}, {}, {}, {}
        for k, node in enumerate(NODES):
            net = f"10.213.{base + k}"
            name = f"etna-pt-{os.getpid()}-{k}"
            self.ns[node], self.host_if[node] = name, f"etpt{os.getpid() % 100000}h{k}"
            self.host_ip[node], self.node_ip[node] = f"{net}.1", f"{net}.2"
            ip("netns", "add", name)
            ip("link", "add", self.host_if[node], "type", "veth", "peer", "name", "eth0",
               "netns", name)
            ip("addr", "add", f"{net}.1/30", "dev", self.host_if[node])
            ip("link", "set", self.host_if[node], "up")
            ip("-n", name, "addr", "add", f"{net}.2/30", "dev", "eth0")
            ip("-n", name, "link", "set", "eth0", "up")
            ip("-n", name, "link", "set", "lo", "up")

    def cut(self, node):
        ip("link", "set", self.host_if[node], "down")

    def heal(self, node):
        ip("link", "set", self.host_if[node], "up")

    def remove(self):
        for node, name in self.ns.items():
            subprocess.run(["ip", "link", "del", self.host_if[node]], capture_output=True)
            subprocess.run(["ip", "netns", "del", name], capture_output=True)

    def agent_wrap(self, node):
        """The agent runs in the node's namespace with a kubeconfig naming the host's end."""
        def wrap(c):
            path = os.path.join(c.work, f"kubeconfig-{node}")
            text = open(c.kubeconfig).read().replace(
                f"server: https://127.0.0.1:{c.port}",
                f"server: https://{self.host_ip[node]}:{c.port}\n    insecure-skip-tls-verify: true")
            text = "\n".join(l for l in text.splitlines() if "certificate-authority" not in l)
            open(path, "w").write(text + "\n")
            return ["ip", "netns", "exec", self.ns[node]], path
        return wrap


def intervals(marks):
    """uid -> (first, last) time it wrote."""
    out = {}
    for line in open(marks).read().splitlines():
        uid, t = line.split()
        first, last = out.get(uid, (float(t), float(t)))
        out[uid] = (min(first, float(t)), max(last, float(t)))
    return out


def main():
    etna = sys.argv[1]
    if os.geteuid() != 0:
        sys.exit("FAIL: partition_test needs root to make network namespaces (ip netns)")
    spaces = Namespaces()
    try:
        with Cluster(etna, PROFILE, NODES, lease_seconds=3, server_listen="0.0.0.0",
                     node_ips=spaces.node_ip,
                     agent_wrap={n: spaces.agent_wrap(n) for n in NODES}) as c:
            marks = os.path.join(c.work, "marks")
            script = (f"while true; do echo \"$POD_UID $(date +%s.%N)\" >> {marks}; "
                      "sleep 0.05; done")
            c.apply(worker_job("rank", script, 1, 8, grace=1, env=[
                {"name": "POD_UID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}}}],
                spec={"minAvailable": 1,
                      "policies": [{"event": "PodFailed", "action": "RestartJob"}]}))
            first = c.wait(lambda: next((p for p in c.pods("rank")
                                         if p["status"].get("phase") == "Running"), None),
                           "rank running")
            cut_node = first["spec"]["nodeName"]
            other = next(n for n in NODES if n != cut_node)
            c.wait(lambda: os.path.exists(marks), "the rank writing")
            cut_at = time.time()
            spaces.cut(cut_node)
            moved = c.wait(lambda: next((p for p in c.pods("rank")
                                         if p["spec"].get("nodeName") == other and
                                         p["status"].get("phase") == "Running"), None),
                           f"the rank running on {other}", timeout=60)
            moved_at = time.time()
            new_uid = moved["metadata"]["uid"]
            # The new copy writes a while (20 marks, about a second) beside the fenced old one.
            c.wait(lambda: open(marks).read().count(new_uid) >= 20, "the new copy writing")
            spaces.heal(cut_node)
            c.wait(lambda: c.node_ready(cut_node), f"{cut_node} Ready again", timeout=30)
            runs = intervals(marks)
            old, new = runs.get(first["metadata"]["uid"]), runs.get(new_uid)
            check(old and new, f"both copies wrote: {runs}")
            check(old[1] < new[0], f"the copies overlapped: old ran until {old[1]:.2f}, "
                  f"the new one from {new[0]:.2f}")
            log_path = os.path.join(c.work, f"agent-{cut_node}.log")
            check("fenced: no lease renewal" in open(log_path).read(),
                  "the cut agent did not log its fence")
            c.wait(lambda: "renewed again" in open(log_path).read(),
                   "the cut agent logging its return", timeout=30)
            print(f"PARTITION cut_to_fence_s={old[1] - cut_at:.2f} "
                  f"cut_to_replaced_s={moved_at - cut_at:.2f} gap_s={new[0] - old[1]:.2f}")
    finally:
        spaces.remove()
    print("PASS")


if __name__ == "__main__":
    main()
