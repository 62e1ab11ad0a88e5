#!/usr/bin/python3
"""One node's wall clock steps back half an hour, then forward again (libfaketime on its
agent, whose monotonic clock is left alone, as after an NTP step): its lease, its pods, their
grace periods and their probes must behave as if nothing happened.

- The node stays Ready and its pods keep running (the server judges leases by when it saw
  them renewed; the agent's fence counts on its monotonic clock): no NodeLost, no fence.
- Back half an hour: a readiness probe keeps its 1 s period (the pod becomes Ready when its file
  appears, not half an hour later); a pod that ignores SIGTERM is SIGKILLed after its 5 s grace
  period and its deletion completes (not half an hour later).
- Forward half an hour, during a pod's 20 s grace period: it is not SIGKILLed at once.

Usage: clock_test.py ETNA_BINARY
"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, h100_profile  # noqa: E402

FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
NODE = "h100-0"


def pod(name, script, grace=5, readiness_file=None):
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c", script]}
    if readiness_file:
        container["readinessProbe"] = {"exec": {"command": ["test", "-f", readiness_file]},
                                       "periodSeconds": 1}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeName": NODE, "restartPolicy": "Never",
                     "terminationGracePeriodSeconds": grace, "containers": [container]}}


# Ignores SIGTERM (saying so in its log) and keeps running; says "trapping" once it does.
STUBBORN = "trap 'echo TERM' TERM; echo trapping; while true; do sleep 0.2; done"


def main(etna):
    if not os.path.exists(FAKETIME):
        raise SystemExit(f"clock_test: {FAKETIME} is missing: install faketime "
                         "(scripts/install-deps.sh)")
    scratch = tempfile.mkdtemp(prefix="etna-clock-")
    offset_file = os.path.join(scratch, "faketime")
    set_offset(offset_file, "+0")

    def faked_clock(c):
        env = ["env", f"LD_PRELOAD={FAKETIME}", f"FAKETIME_TIMESTAMP_FILE={offset_file}",
               "FAKETIME_NO_CACHE=1", "FAKETIME_DONT_FAKE_MONOTONIC=1"]
        return env, c.kubeconfig

    try:
        with Cluster(etna, h100_profile(1), [NODE], lease_seconds=3,
                     agent_wrap={NODE: faked_clock}) as c:
            try:
                run(c, lambda offset: set_offset(offset_file, offset), scratch)
            except BaseException:
                c.dump_logs()
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("clock: ok")


def set_offset(path, offset):
    with open(path + ".tmp", "w") as f:
        f.write(offset + "\n")
    os.replace(path + ".tmp", path)


def agent_log(c):
    return open(os.path.join(c.work, f"agent-{NODE}.log"), errors="replace").read()


def pod_obj(c, name):
    return c.get(f"/api/v1/namespaces/default/pods/{name}")


def ready(p):
    return any(cond.get("type") == "Ready" and cond.get("status") == "True"
               for cond in (p or {}).get("status", {}).get("conditions", []))


def run(c, step_to, work):
    c.wait(lambda: c.node_ready(NODE), "node ready")
    ready_file = os.path.join(work, "ready")
    for p in (pod("stubborn", STUBBORN), pod("probed", "sleep 1000", readiness_file=ready_file)):
        status, body = c.request("POST", "/api/v1/namespaces/default/pods", p)
        check(status == 201, f"create {p['metadata']['name']}: {status} {body}")
    c.wait(lambda: all((pod_obj(c, n) or {}).get("status", {}).get("phase") == "Running"
                       for n in ("stubborn", "probed")), "both pods Running")
    check(not ready(pod_obj(c, "probed")), "probed is not Ready before its file exists")

    # ---- back half an hour (the certificates allow an hour of skew) ----
    step_to("-1800")
    c.wait(lambda: "stepped by -1800" in agent_log(c), "the agent noticing the step back")
    open(ready_file, "w").close()
    c.wait(lambda: ready(pod_obj(c, "probed")), "probed Ready (its probe kept its period)",
           timeout=30)
    c.wait(lambda: "trapping" in c.log("stubborn"), "stubborn trapping SIGTERM")
    c.kubectl("delete", "pod", "stubborn", "--wait=false")
    c.wait(lambda: "TERM" in c.log("stubborn"), "stubborn's SIGTERM")
    c.wait(lambda: pod_obj(c, "stubborn") is None,
           "stubborn SIGKILLed after its 5 s grace period and gone", timeout=30)
    check(c.node_ready(NODE), "the node stayed Ready")

    # ---- forward half an hour, within a grace period ----
    status, body = c.request("POST", "/api/v1/namespaces/default/pods",
                             pod("patient", STUBBORN, grace=20))
    check(status == 201, f"create patient: {status} {body}")
    c.wait(lambda: (pod_obj(c, "patient") or {}).get("status", {}).get("phase") == "Running",
           "patient Running")
    c.wait(lambda: "trapping" in c.log("patient"), "patient trapping SIGTERM")
    c.kubectl("delete", "pod", "patient", "--wait=false")
    c.wait(lambda: "TERM" in c.log("patient"), "patient's SIGTERM")
    step_to("+0")
    c.wait(lambda: "stepped by +1800" in agent_log(c), "the agent noticing the step forward")
    # Its SIGKILL is due 20 s after its SIGTERM, not at the step: it is still there 5 s on.
    noticed = time.monotonic()
    while time.monotonic() - noticed < 5:
        check(pod_obj(c, "patient") is not None,
              f"patient was killed {time.monotonic() - noticed:.1f} s after the clock stepped "
              "forward, inside its 20 s grace period")
        time.sleep(0.2)
    c.wait(lambda: pod_obj(c, "patient") is None, "patient gone after its grace period",
           timeout=60)

    # ---- the node and its other pod never noticed ----
    check(c.node_ready(NODE), "the node stayed Ready")
    p = pod_obj(c, "probed")
    check(p and p["status"]["phase"] == "Running" and ready(p), f"probed still Running: {p}")
    log = agent_log(c)
    check("fenc" not in log.lower(), "the agent fenced its node on a clock step")
    events = c.items("/api/v1/namespaces/default/events")
    lost = [e for e in events if e.get("reason") in ("NodeLost", "NodeNotReady", "NodeFenced")]
    check(not lost, f"events of a lost node: {lost}")


if __name__ == "__main__":
    main(sys.argv[1])
