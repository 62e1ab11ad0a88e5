#!/usr/bin/python3
"""End to end: Kubernetes' batch/v1 Job and CronJob and Volcano's CronJob in `etna dev`, driven
with kubectl as a user would: an Indexed Job's pods run (each with its JOB_COMPLETION_INDEX) and
`kubectl wait --for=condition=complete` returns; `kubectl create job` (a protobuf body) runs;
a Job that keeps failing is Failed with
BackoffLimitExceeded; a suspended Job makes no pod until resumed; a CronJob and a Volcano
CronJob each make a Job at the next minute; `kubectl get` prints their tables.

Usage: batch_test.py ETNA_BINARY
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dev import Dev, wait_for  # noqa: E402


def job(name, spec, command):
    spec = dict(spec)
    spec["template"] = {"spec": {"restartPolicy": "Never", "containers": [
        {"name": "main", "image": "busybox", "command": ["sh", "-c", command],
         "resources": {"requests": {"cpu": "100m"}}}]}}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def main():
    etna = sys.argv[1]
    with Dev(etna, prefix="etna-batch-") as dev:
        k = dev.k

        def apply(obj):
            path = os.path.join(dev.work, obj["metadata"]["name"] + ".json")
            with open(path, "w") as f:
                json.dump(obj, f)
            k("apply", "-f", path)

        def get(kind, name):
            return json.loads(k("get", kind, name, "-o", "json"))

        # The cron jobs first: their first run comes at the next minute, while the rest runs.
        apply({"apiVersion": "batch/v1", "kind": "CronJob",
               "metadata": {"name": "tick", "namespace": "default"},
               "spec": {"schedule": "* * * * *", "timeZone": "UTC",
                        "jobTemplate": {"spec": job("x", {}, "echo tick")["spec"]}}})
        apply({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "CronJob",
               "metadata": {"name": "vtick", "namespace": "default"},
               "spec": {"schedule": "* * * * *", "timeZone": "UTC",
                        "jobTemplate": {"spec": {"minAvailable": 1, "tasks": [
                            {"name": "t", "replicas": 1, "template": {"spec": {
                                "restartPolicy": "Never",
                                "containers": [{"name": "c", "image": "busybox",
                                                "command": ["sh", "-c", "echo vtick"]}]}}}]}}}})

        apply(job("indexed", {"completions": 3, "parallelism": 3, "completionMode": "Indexed"},
                  "echo index=$JOB_COMPLETION_INDEX"))
        k("wait", "--for=condition=complete", "job/indexed", "--timeout=90s", timeout=120)
        j = get("job", "indexed")
        assert j["status"]["succeeded"] == 3 and j["status"]["completedIndexes"] == "0-2", j
        pods = json.loads(k("get", "pods", "-l", "job-name=indexed", "-o", "json"))["items"]
        assert len(pods) == 3, [p["metadata"]["name"] for p in pods]
        seen = set()
        for p in pods:
            assert "finalizers" not in p["metadata"], p["metadata"]  # counted, released
            seen.add(k("logs", p["metadata"]["name"]).strip())
        assert seen == {"index=0", "index=1", "index=2"}, seen
        table = k("get", "job", "indexed")
        assert "Complete" in table and "3/3" in table, table
        print("indexed job completed:", sorted(seen), flush=True)

        # kubectl's generator sends the Job as protobuf.
        k("create", "job", "made", "--image=busybox", "--", "sh", "-c", "echo made")
        k("wait", "--for=condition=complete", "job/made", "--timeout=60s", timeout=90)
        assert k("logs", "job/made").strip() == "made"
        print("kubectl create job ran", flush=True)

        apply(job("broken", {"backoffLimit": 0}, "exit 3"))
        k("wait", "--for=condition=failed", "job/broken", "--timeout=60s", timeout=90)
        cond = [c for c in get("job", "broken")["status"]["conditions"] if c["type"] == "Failed"]
        assert cond[0]["reason"] == "BackoffLimitExceeded", cond
        print("failing job failed:", cond[0]["reason"], flush=True)

        apply(job("held", {"suspend": True}, "echo resumed"))
        wait_for(lambda: any(c["type"] == "Suspended" and c["status"] == "True"
                             for c in get("job", "held").get("status", {}).get("conditions", [])),
                 "the Suspended condition")
        assert not json.loads(k("get", "pods", "-l", "job-name=held", "-o", "json"))["items"]
        k("patch", "job", "held", "--type=merge", "-p", '{"spec":{"suspend":false}}')
        k("wait", "--for=condition=complete", "job/held", "--timeout=60s", timeout=90)
        print("suspended job ran once resumed", flush=True)

        def cron_made(kind, name):
            return [x for x in json.loads(k("get", kind, "-o", "json"))["items"]
                    if any(r["name"] == name for r in x["metadata"].get("ownerReferences", []))]

        wait_for(lambda: cron_made("jobs", "tick"), "the CronJob's Job", timeout=90)
        wait_for(lambda: cron_made("vcjob", "vtick"), "the Volcano CronJob's Job", timeout=30)
        made = cron_made("jobs", "tick")[0]["metadata"]["name"]
        k("wait", "--for=condition=complete", f"job/{made}", "--timeout=60s", timeout=90)
        table = k("get", "cronjob", "tick")
        assert "* * * * *" in table and "UTC" in table, table
        assert get("cronvcjob", "vtick")["status"].get("lastScheduleTime"), "no lastScheduleTime"
        print("cron jobs made", made, "and", cron_made("vcjob", "vtick")[0]["metadata"]["name"],
              flush=True)
    print("PASS")


if __name__ == "__main__":
    main()
