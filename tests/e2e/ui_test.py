#!/usr/bin/python3
"""End to end: the web dashboard (docs/dashboard.md) in headless Chromium against `etna dev`
running the seed's queues, its training job (kept running), a job no node can hold, and a job
submitted with kubectl while the page is open.

Checks, each against the API: an unauthenticated browser gets the login and no data; the GPU
map's per-queue counts are exactly the GPUs the API says are held; a pending job's page shows
the scheduler's reason (its PodGroup's condition); a kubectl-submitted job appears on the jobs
page within two seconds without a reload; Suspend on a job's page makes the job Aborted in the
API; the queues page charts allocation over time from the server's samples; a team's user who may read only its namespace logs in naming it and sees
its own jobs live and no other's. The login, the map,
a pending job's reason and a live change again in Firefox. Saves a 1280x800 screenshot of each page in ARTIFACTS_DIR.

Usage: ui_test.py ETNA_BINARY SEED_DIR EXAMPLES_DIR ARTIFACTS_DIR
"""
import json
import os
import re
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402
from firefox import Firefox  # noqa: E402
from dev import KUBECTL, Dev, wait_for  # noqa: E402

def job_yaml(name, queue, gpus, command, labels="{}"):
    """A one-pod Volcano Job in the default namespace."""
    return f"""
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {{name: {name}, namespace: default, labels: {labels}}}
spec:
  schedulerName: volcano
  queue: {queue}
  minAvailable: 1
  tasks:
  - name: main
    replicas: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          image: busybox
          command: {command}
          resources:
            limits: {{nvidia.com/gpu: "{gpus}"}}
"""


# No node has 64 GPUs (and the queue's capability is 40): it stays Pending with a reason.
PENDING_JOB = job_yaml("too-big", "experiment-training", 64, '["sleep", "600"]')
# The seed's QueueBinding admits production-training's jobs by these labels.
SMALL_JOB = job_yaml("from-kubectl", "production-training", 1,
                     '["sh", "-c", "echo hello from the dashboard test; sleep 600"]',
                     "{team: algorithm, env: production}")


def server_url(dev):
    m = re.search(r"etna dev: serving (https?://[^ ]+)", dev.output())
    assert m, dev.output()
    return m.group(1)


def admin_token(dev):
    text = open(dev.kubeconfig).read()
    m = re.search(r"token: *\"?([^\"\s]+)", text)
    assert m, "no token in the kubeconfig"
    return m.group(1)


def get_json(url, token=None):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(request, context=context, timeout=10) as r:
        return json.loads(r.read())


def held_per_queue(dev):
    """GPUs held per queue as the API says: each running pod's bound GPUs (etna.io/gpu-ids),
    in its PodGroup's queue."""
    pods = json.loads(dev.k("get", "pods", "-A", "-o", "json"))["items"]
    groups = json.loads(dev.k("get", "podgroups", "-A", "-o", "json"))["items"]
    queue_of = {(g["metadata"]["namespace"], g["metadata"]["name"]): g["spec"].get("queue", "default")
                for g in groups}
    held = {}
    for p in pods:
        ann = p["metadata"].get("annotations", {})
        ids = [i for i in ann.get("etna.io/gpu-ids", "").split(",") if i]
        if not p["spec"].get("nodeName") or not ids or p["status"].get("phase") in ("Succeeded", "Failed"):
            continue
        group = ann.get("scheduling.k8s.io/group-name", "")
        queue = queue_of.get((p["metadata"]["namespace"], group), "default")
        held[queue] = held.get(queue, 0) + len(ids)
    return held


def legend_counts(page):
    return page.eval("""Object.fromEntries([...document.querySelectorAll('#legend li[data-queue]')]
        .map((li) => [li.dataset.queue, Number(li.dataset.gpus)]))""")


def team_checks(dev, page, url, token, artifacts):
    """A team's user (a ServiceAccount with `admin` in its namespace only, under RBAC) logs in
    naming its namespace: it sees its own jobs live, no other namespace's, and is told what it
    may not read."""
    dev.k("create", "namespace", "team-a")
    dev.k("create", "serviceaccount", "alice", "-n", "team-a")  # a protobuf body
    dev.k("create", "rolebinding", "alice-admin", "--clusterrole=admin",
          "--serviceaccount=team-a:alice", "-n", "team-a")
    team_token = dev.k("create", "token", "alice", "-n", "team-a").strip()
    page.click("#logout")
    page.wait_for("document.querySelector('#login') !== null")
    page.type("#token", team_token)
    page.click("#login button[type=submit]")
    page.wait_for("document.querySelector('#live').textContent.includes('log in naming your namespace')")
    page.click("#logout")
    page.wait_for("document.querySelector('#login') !== null")
    page.type("#token", team_token)
    page.type("#namespace", "team-a")
    page.click("#login button[type=submit]")
    page.wait_for("document.querySelector('#live').textContent.startsWith('live (not allowed to read: nodes')")
    page.navigate(f"{url}/ui/#/jobs")
    page.wait_for("document.querySelector('#jobs table') !== null")
    path = os.path.join(dev.work, "team.yaml")
    open(path, "w").write(job_yaml("team-job", "default", 1, '["sleep", "600"]').replace(
        "namespace: default", "namespace: team-a"))
    subprocess.run([KUBECTL, "--server", url, "--insecure-skip-tls-verify", "--token", team_token,
                    "apply", "-f", path], check=True, capture_output=True)
    page.wait_for("[...document.querySelectorAll('#jobs a')].some((a) => a.textContent === 'team-job')",
                  timeout=2)
    names = page.eval("[...document.querySelectorAll('#jobs a')].map((a) => a.textContent)")
    assert "too-big" not in names, names
    page.screenshot(os.path.join(artifacts, "jobs-team.png"))
    page.click("#logout")  # and back as the admin
    page.wait_for("document.querySelector('#login') !== null")
    page.type("#token", token)
    page.type("#namespace", "")
    page.click("#login button[type=submit]")
    page.wait_for("document.querySelector('#live').textContent === 'live'")


def firefox_checks(dev, url, token, artifacts):
    """The dashboard in Firefox too: the login, the map against the API, a pending job's
    reason, and a change shown live (a job deleted with kubectl leaves the jobs page)."""
    with Firefox() as browser:
        page = browser.open(f"{url}/ui/")
        page.wait_for("document.querySelector('#login') !== null")
        page.type("#token", token)
        page.click("#login button[type=submit]")
        page.wait_for("document.querySelector('#gpumap') !== null && "
                      "document.querySelector('#live').textContent === 'live'", timeout=20)
        wait_for(lambda: legend_counts(page) == held_per_queue(dev), "Firefox's map to match the API",
                 timeout=15)
        page.screenshot(os.path.join(artifacts, "firefox-gpus.png"))
        page.navigate(f"{url}/ui/#/job/default/too-big")
        page.wait_for("document.querySelector('#reason') && "
                      "document.querySelector('#reason').textContent.includes('Suggestion:')")
        page.navigate(f"{url}/ui/#/jobs")
        page.wait_for("[...document.querySelectorAll('#jobs a')].some((a) => a.textContent === 'from-kubectl')")
        dev.k("delete", "vcjob", "from-kubectl", "--wait=false")
        deleted = time.monotonic()
        page.wait_for("![...document.querySelectorAll('#jobs a')].some((a) => a.textContent === 'from-kubectl')",
                      timeout=2)
        print(f"UI firefox job_gone_s={time.monotonic() - deleted:.2f}")
        page.screenshot(os.path.join(artifacts, "firefox-jobs.png"))
        errors = [m for m in page.console if "error" in str(m).lower()]
        assert not errors, errors


def main():
    etna, seed, examples, artifacts = sys.argv[1:5]
    os.makedirs(artifacts, exist_ok=True)
    # A history sampled by the server and one from Prometheus are not both given: refused by name.
    for command in ("server", "dev"):
        r = subprocess.run([etna, command, "--data-dir", os.path.join(artifacts, "unused"),
                            "--prometheus-url", "http://127.0.0.1:9", "--usage-sample-period", "5s"],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and "--usage-sample-period" in r.stderr, (command, r.stderr)
    with Dev(etna, prefix="etna-ui-", args=["--usage-sample-period", "1s"]) as dev:
        assert "dashboard at https://" in dev.output(), dev.output()
        url = server_url(dev)
        token = admin_token(dev)
        dev.k("apply", "-f", os.path.join(seed, "volcano-queues.yaml"))
        training = open(os.path.join(examples, "seed-training-runnable.yaml")).read()
        training = training.replace("${EPOCH_SECONDS:-2}", "60")  # runs for the whole test
        for name, text in (("training.yaml", training), ("too-big.yaml", PENDING_JOB)):
            path = os.path.join(dev.work, name)
            open(path, "w").write(text)
            dev.k("apply", "-f", path)
        wait_for(lambda: sum(held_per_queue(dev).values()) >= 4, "the training job's GPUs bound")
        wait_for(lambda: "Unschedulable" in dev.k("get", "podgroups", "-o", "json"),
                 "the scheduler's reason on too-big's PodGroup")

        # The files are public; the data is not.
        try:
            get_json(f"{url}/api/v1/pods")
            raise AssertionError("pods were listed without a token")
        except urllib.error.HTTPError as e:
            assert e.code == 401, e

        with Browser(args=["--ignore-certificate-errors"]) as browser:
            page = browser.open(f"{url}/ui/")
            page.wait_for("document.querySelector('#login') !== null")
            assert page.eval("document.querySelector('#gpumap') === null"), "data shown before login"
            page.screenshot(os.path.join(artifacts, "login.png"))

            page.type("#token", "not-a-token")
            page.click("#login button[type=submit]")
            page.wait_for("document.querySelector('#login .error').textContent.includes('did not accept')")

            page.type("#token", token)
            page.click("#login button[type=submit]")
            page.wait_for("document.querySelector('#gpumap') !== null && "
                          "document.querySelector('#live').textContent === 'live'")

            # The map holds exactly what the API says is held, per queue.
            def map_matches():
                api = held_per_queue(dev)
                shown = legend_counts(page)
                return api == shown and api
            wait_for(map_matches, "the GPU map to match the API", timeout=15)
            shown = legend_counts(page)
            assert shown.get("production-training") == 4, shown
            page.click("#gpumap")  # focus; the arrow keys select a GPU
            page.eval("document.querySelector('#gpumap').dispatchEvent("
                      "new KeyboardEvent('keydown', {key: 'ArrowRight'}))")
            page.wait_for("document.querySelector('#gpu-details h2') !== null")
            # The agent's readings through the API's node proxy.
            page.wait_for("document.querySelector('#gpu-details').textContent.includes('Temperature')",
                          timeout=15)
            page.screenshot(os.path.join(artifacts, "gpus.png"))
            # Cordon the selected GPU's node from the page: the API has it unschedulable.
            node = page.eval("document.querySelector('#gpu-details h2').textContent.split(' ')[0]")
            page.click("#cordon")
            wait_for(lambda: dev.k("get", "node", node, "-o", "jsonpath={.spec.unschedulable}") == "true",
                     f"{node} cordoned from the page", timeout=10)
            page.wait_for("document.querySelector('#cordon').textContent === 'Uncordon'")
            page.click("#cordon")
            wait_for(lambda: dev.k("get", "node", node, "-o", "jsonpath={.spec.unschedulable}") == "",
                     f"{node} uncordoned from the page", timeout=10)

            # A pending job's page shows the scheduler's reason.
            groups = json.loads(dev.k("get", "podgroups", "-o", "json"))["items"]
            too_big = [g for g in groups if g["metadata"]["name"].startswith("too-big")][0]
            reason = [c for c in too_big["status"]["conditions"] if c["type"] == "Unschedulable"][0]
            page.navigate(f"{url}/ui/#/job/default/too-big")
            page.wait_for("document.querySelector('#reason') !== null")
            wait_for(lambda: reason["message"] in page.eval("document.querySelector('#reason').textContent"),
                     "the scheduler's reason on the job page", timeout=10)
            # The whole of `etna explain too-big`, as the CLI prints it.
            explained = page.eval("document.querySelector('#reason').textContent")
            assert "Queue experiment-training: Open" in explained, explained
            cli = subprocess.run([etna, "explain", "too-big", "--kubeconfig", dev.kubeconfig],
                                 capture_output=True, text=True, check=True).stdout
            assert cli.strip() in explained, f"page:\n{explained}\ncli:\n{cli}"
            assert "Suggestion:" in explained, explained
            page.screenshot(os.path.join(artifacts, "job-pending.png"))

            page.navigate(f"{url}/ui/#/queues")
            page.wait_for("document.querySelector('#queues tr[data-queue=\"production-training\"]') !== null")
            row = page.eval("document.querySelector('#queues tr[data-queue=\"production-training\"]').textContent")
            assert "4 allocated" in row and "capability 80" in row, row
            # Allocation over time, from the server's samples (one a second here).
            page.wait_for("document.querySelector('#history polygon[data-queue=\"production-training\"]') !== null",
                          timeout=15)
            summary = page.eval("document.querySelector('#history-summary').textContent")
            assert "production-training 4" in summary, summary
            page.screenshot(os.path.join(artifacts, "queues.png"))
            # Close a queue from the page (a bus Command, as `etna queue operate` makes).
            page.click("#queues button[data-queue=\"dev-test\"]")
            wait_for(lambda: dev.k("get", "queue", "dev-test", "-o", "jsonpath={.status.state}") == "Closed",
                     "dev-test closed from the page", timeout=15)

            # A job submitted with kubectl appears without a reload, within two seconds.
            page.navigate(f"{url}/ui/#/jobs")
            page.wait_for("document.querySelector('#jobs table') !== null")
            marker = page.eval("window.etnaNoReload = Math.random()")
            path = os.path.join(dev.work, "small.yaml")
            open(path, "w").write(SMALL_JOB)
            dev.k("apply", "-f", path)
            created = time.monotonic()
            page.wait_for("[...document.querySelectorAll('#jobs a')].some((a) => a.textContent === 'from-kubectl')",
                          timeout=2)
            print(f"UI job_visible_s={time.monotonic() - created:.2f}")
            assert page.eval("window.etnaNoReload") == marker, "the page was reloaded"
            page.screenshot(os.path.join(artifacts, "jobs.png"))

            # Suspend from the page: the job is Aborted in the API.
            wait_for(lambda: "Running" in dev.k("get", "vcjob", "from-kubectl", "-o", "jsonpath={.status.state.phase}"),
                     "from-kubectl running")
            page.navigate(f"{url}/ui/#/job/default/from-kubectl")
            page.wait_for("document.querySelector('#suspend') !== null && !document.querySelector('#suspend').disabled")
            page.click("#tasks button")  # follow the first pod's log
            page.wait_for("document.querySelector('#log').textContent.includes('hello from the dashboard test')")
            page.click("#suspend")
            page.wait_for("!['', 'Working…'].includes(document.querySelector('#action-status').textContent)")
            outcome = page.eval("document.querySelector('#action-status').textContent")
            assert outcome == "Done.", f"suspend: {outcome}; dialogs {page.dialogs}"
            wait_for(lambda: dev.k("get", "vcjob", "from-kubectl", "-o", "jsonpath={.status.state.phase}")
                     in ("Aborting", "Aborted"), "from-kubectl suspended", timeout=30)
            page.wait_for("['Aborting', 'Aborted'].includes(document.querySelector('#job-phase').textContent)")
            page.screenshot(os.path.join(artifacts, "job.png"))

            team_checks(dev, page, url, token, artifacts)

            page.set_dark(True)
            page.navigate(f"{url}/ui/#/gpus")
            page.wait_for("document.querySelector('#gpumap') !== null")
            page.screenshot(os.path.join(artifacts, "gpus-dark.png"))

            errors = [m for m in page.console if "error" in str(m).lower()]
            assert not errors, errors
        firefox_checks(dev, url, token, artifacts)
    print("e2e_ui: ok")


if __name__ == "__main__":
    main()
