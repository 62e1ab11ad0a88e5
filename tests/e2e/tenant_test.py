#!/usr/bin/python3
"""Two teams and two agents on one `etna server`, whose authorization is first its YAML rules,
then Kubernetes RBAC (each team's group bound to ClusterRole admin in its own namespace):
nobody sees or touches another's work.

- Team A's token gets 403 for team B's pods and Volcano Jobs: get, list, watch (one namespace
  and all namespaces), log, exec, attach, port-forward, eviction, patch, delete, create; and for
  the cluster's Queues it may not change (a queue's capability).
- Team A's own watch carries nothing of team B's, even while team B's pods change.
- A queue given to team B (spec.allowedNamespaces: [team-b]) refuses team A's job.
- An agent's credential touches only its own node's objects: not another Node, not a pod bound
  to another node, not a list of every pod, not another namespace's Secret.
- No token appears in the server's log.
- Under RBAC also: team A may not grant itself more (a RoleBinding to cluster-admin, a
  ClusterRoleBinding, a binding in team B's namespace), `kubectl auth can-i` and `kubectl auth
  whoami` answer for team A's user (and for an admin asking --as it), a ServiceAccount has
  nothing until bound and then only its namespace.

Usage: tenant_test.py ETNA_BINARY
"""
import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import check, start_etna_server  # noqa: E402

TOKENS = {
    "alice": "alice-token-0123456789",
    "bob": "bob-token-0123456789",
    "n1": "agent-n1-token-0123456789",
    "n2": "agent-n2-token-0123456789",
}


class Server:
    def __init__(self, etna, work, rbac):
        tokens = os.path.join(work, "users.csv")
        with open(tokens, "w") as f:
            f.write(f'{TOKENS["alice"]},alice,1001,"team-a"\n')
            f.write(f'{TOKENS["bob"]},bob,1002,"team-b"\n')
            f.write(f'{TOKENS["n1"]},system:node:n1,2001,"system:nodes"\n')
            f.write(f'{TOKENS["n2"]},system:node:n2,2002,"system:nodes"\n')
        args = ["--tokens-file", tokens]
        if not rbac:
            rules = os.path.join(work, "rules.yaml")
            with open(rules, "w") as f:
                f.write("- group: team-a\n  namespaces: [team-a]\n  resources: ['*']\n"
                        "  access: write\n"
                        "- group: team-b\n  namespaces: [team-b]\n  resources: ['*']\n"
                        "  access: write\n")
            args += ["--authorization-file", rules]
        self.data = os.path.join(work, "data")
        self.log_path = os.path.join(work, "server.log")
        self.proc, self.port = start_etna_server(etna, self.data, args=args,
                                                 log_path=self.log_path)
        self.ca = os.path.join(self.data, "pki", "ca.crt")
        self.admin = open(os.path.join(self.data, "tokens.csv")).read().split(",")[0]

    def connect(self):
        ctx = ssl.create_default_context(cafile=self.ca)
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=ctx, timeout=30)

    def request(self, token, method, path, body=None, content_type="application/json",
                headers=None):
        conn = self.connect()
        h = {"Authorization": f"Bearer {token}", "Content-Type": content_type, **(headers or {})}
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=h)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, data

    def must(self, method, path, body=None, expect=(200, 201)):
        status, data = self.request(self.admin, method, path, body)
        check(status in expect, f"admin {method} {path}: {status} {data[:300]}")
        return json.loads(data) if data else None


def pod(name, ns, node):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox",
                                                       "command": ["sleep", "600"]}]}}


def job(name, ns):
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"minAvailable": 1, "schedulerName": "volcano", "queue": "default",
                     "tasks": [{"name": "t", "replicas": 1, "template": {"spec": {
                         "restartPolicy": "Never",
                         "containers": [{"name": "c", "image": "busybox",
                                         "command": ["true"]}]}}}]}}


def forbidden(server, who, method, path, body=None, content_type="application/json",
              headers=None):
    status, data = server.request(TOKENS[who], method, path, body, content_type, headers)
    check(status == 403, f"{who} {method} {path}: want 403, got {status} {data[:300]}")
    return 1


def watch_until(server, token, path, marker):
    """Reads the watch at `path` until an event names `marker`; returns every event's
    (namespace, name)."""
    conn = server.connect()
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    resp = conn.getresponse()
    check(resp.status == 200, f"watch {path}: {resp.status}")
    seen = []
    while True:
        line = resp.fp.readline()
        if not line.strip():
            continue
        try:
            size = int(line.strip(), 16)  # chunked framing
            chunk = resp.fp.read(size + 2)[:-2]
        except ValueError:
            chunk = line
        for text in chunk.decode().splitlines():
            if not text.strip():
                continue
            meta = json.loads(text)["object"]["metadata"]
            seen.append((meta.get("namespace"), meta["name"]))
            if meta["name"] == marker:
                conn.close()
                return seen


def main(etna):
    for rbac in (False, True):
        print(f"tenant: authorization by {'RBAC' if rbac else 'the YAML rules'}")
        work = tempfile.mkdtemp(prefix="etna-tenant-")
        server = Server(etna, work, rbac)
        try:
            run(server, rbac)
            if rbac:
                run_rbac(server, work)
            log = open(server.log_path, errors="replace").read()
            for who, token in list(TOKENS.items()) + [("admin", server.admin)]:
                check(token not in log, f"the server logged {who}'s token")
        finally:
            server.proc.terminate()
            server.proc.wait()
            shutil.rmtree(work, ignore_errors=True)
    print("tenant: ok")


RBAC = "/apis/rbac.authorization.k8s.io/v1"


def binding(name, kind, role, subjects):
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role},
            "subjects": subjects}


def group(name):
    return [{"kind": "Group", "name": name, "apiGroup": "rbac.authorization.k8s.io"}]


def kubectl(s, work, token, *args):
    """Runs kubectl against the server as `token`; returns (exit code, output)."""
    config = os.path.join(work, "kubeconfig-" + token[:8])
    with open(config, "w") as f:
        f.write(f"""apiVersion: v1
kind: Config
clusters:
- name: etna
  cluster: {{server: "https://127.0.0.1:{s.port}", certificate-authority: "{s.ca}"}}
users:
- name: u
  user: {{token: "{token}"}}
contexts:
- name: c
  context: {{cluster: etna, user: u}}
current-context: c
""")
    p = subprocess.run(["kubectl", "--kubeconfig", config] + list(args), capture_output=True,
                       text=True, timeout=60)
    return p.returncode, (p.stdout + p.stderr).strip()


def run_rbac(s, work):
    """What RBAC adds: no escalation, access reviews, ServiceAccounts."""
    a_bindings = f"{RBAC}/namespaces/team-a/rolebindings"
    refused = 0
    for path, body in [
            (a_bindings, binding("a-root", "ClusterRole", "cluster-admin", group("team-a"))),
            (f"{RBAC}/namespaces/team-b/rolebindings",
             binding("a-in-b", "ClusterRole", "edit", group("team-a"))),
            (f"{RBAC}/clusterrolebindings",
             dict(binding("a-everywhere", "ClusterRole", "view", group("team-a")),
                  kind="ClusterRoleBinding")),
            (f"{RBAC}/namespaces/team-a/roles",
             {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
              "metadata": {"name": "nodes"},
              "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["*"]}]})]:
        refused += forbidden(s, "alice", "POST", path, body)
    status, data = s.request(TOKENS["alice"], "POST", a_bindings,
                             binding("a-viewers", "ClusterRole", "view", group("auditors")))
    check(status == 201, f"team A grants view in its own namespace: {status} {data[:300]}")
    print(f"tenant: team A refused on {refused} attempts to grant itself more")

    for who, args, want in [
            ("alice", ["create", "pods", "-n", "team-a"], "yes"),
            ("alice", ["create", "rolebindings", "-n", "team-a"], "yes"),
            ("alice", ["list", "pods", "-n", "team-b"], "no"),
            ("alice", ["delete", "jobs.batch.volcano.sh", "-n", "team-b"], "no"),
            ("alice", ["patch", "queues.scheduling.volcano.sh"], "no"),
            ("admin", ["list", "pods", "-n", "team-b", "--as", "alice", "--as-group", "team-a"],
             "no"),
            ("admin", ["list", "pods", "-n", "team-a", "--as", "alice", "--as-group", "team-a"],
             "yes")]:
        token = s.admin if who == "admin" else TOKENS[who]
        code, out = kubectl(s, work, token, "auth", "can-i", *args)
        check(want in out.splitlines() and (code == 0) == (want == "yes"),
              f"kubectl auth can-i {' '.join(args)} as {who}: want {want}, got {code} {out}")
    code, out = kubectl(s, work, TOKENS["alice"], "auth", "whoami", "-o", "json")
    check(code == 0 and json.loads(out)["status"]["userInfo"]["username"] == "alice",
          f"kubectl auth whoami: {code} {out}")
    print("tenant: kubectl auth can-i and whoami answer for team A")

    # A ServiceAccount has nothing until bound, then its namespace only.
    token = s.must("POST", "/api/v1/namespaces/team-a/serviceaccounts/default/token",
                   {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                    "spec": {}})["status"]["token"]
    TOKENS["sa"] = token
    forbidden(s, "sa", "GET", "/api/v1/namespaces/team-a/pods")
    s.must("POST", a_bindings, binding("sa-view", "ClusterRole", "view",
                                       [{"kind": "ServiceAccount", "name": "default"}]))
    status, data = s.request(token, "GET", "/api/v1/namespaces/team-a/pods")
    check(status == 200, f"a bound ServiceAccount lists its namespace's pods: {status}")
    forbidden(s, "sa", "GET", "/api/v1/namespaces/team-b/pods")
    print("tenant: a ServiceAccount reads its namespace once bound, and no other")


def run(s, rbac):
    for ns in ("team-a", "team-b"):
        s.must("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                               "metadata": {"name": ns}})
        if rbac:
            s.must("POST", f"{RBAC}/namespaces/{ns}/rolebindings",
                   binding(f"{ns}-admins", "ClusterRole", "admin", group(ns)))
    for n in ("n1", "n2"):
        s.must("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node",
                                         "metadata": {"name": n}})
    s.must("POST", "/api/v1/namespaces/team-b/pods", pod("b-pod", "team-b", "n2"))
    s.must("POST", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-b/jobs", job("b-job", "team-b"))
    s.must("POST", "/api/v1/namespaces/team-b/secrets",
           {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b-secret"},
            "stringData": {"k": "v"}})

    tried = 0
    b_pods = "/api/v1/namespaces/team-b/pods"
    b_pod = f"{b_pods}/b-pod"
    b_jobs = "/apis/batch.volcano.sh/v1alpha1/namespaces/team-b/jobs"
    merge = "application/merge-patch+json"
    for method, path, body, ctype in [
            ("GET", b_pod, None, None), ("GET", b_pods, None, None),
            ("GET", b_pods + "?watch=1", None, None), ("GET", "/api/v1/pods", None, None),
            ("GET", "/api/v1/pods?watch=1", None, None),
            ("GET", b_pod + "/log", None, None),
            ("POST", b_pod + "/exec?command=true&stdout=true", None, None),
            ("POST", b_pod + "/attach?stdout=true", None, None),
            ("POST", b_pod + "/portforward?ports=80", None, None),
            ("POST", b_pod + "/eviction", {"apiVersion": "policy/v1", "kind": "Eviction",
                                           "metadata": {"name": "b-pod",
                                                        "namespace": "team-b"}}, None),
            ("PATCH", b_pod, {"metadata": {"labels": {"x": "y"}}}, merge),
            ("DELETE", b_pod, None, None), ("POST", b_pods, pod("a-pod", "team-b", "n1"), None),
            ("GET", f"{b_jobs}/b-job", None, None), ("GET", b_jobs, None, None),
            ("GET", b_jobs + "?watch=1", None, None), ("DELETE", f"{b_jobs}/b-job", None, None),
            ("POST", b_jobs, job("a-job", "team-b"), None),
            ("PATCH", "/apis/scheduling.volcano.sh/v1beta1/queues/default",
             {"spec": {"capability": {"nvidia.com/gpu": "1000"}}}, merge),
            ("GET", "/api/v1/namespaces/team-b/secrets/b-secret", None, None)]:
        tried += forbidden(s, "alice", method, path, body, ctype or "application/json")
    print(f"tenant: team A refused on {tried} requests for team B's work and the queues")

    # A queue given to team B (spec.allowedNamespaces) takes no job of team A's.
    s.must("POST", "/apis/scheduling.volcano.sh/v1beta1/queues",
           {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": "team-b-queue"},
            "spec": {"weight": 1, "allowedNamespaces": ["team-b"]}})
    a_job = job("a-job", "team-a")
    a_job["spec"]["queue"] = "team-b-queue"
    status, data = s.request(TOKENS["alice"], "POST",
                             "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs", a_job)
    check(status == 422 and b"does not admit a job of namespace" in data,
          f"team A's job in team B's queue: {status} {data[:300]}")
    b_job = job("b-job-2", "team-b")
    b_job["spec"]["queue"] = "team-b-queue"
    status, data = s.request(TOKENS["bob"], "POST", b_jobs, b_job)
    check(status == 201, f"team B's job in its own queue: {status} {data[:300]}")

    # Team A's own watch shows nothing of team B's while B's pods change.
    s.must("POST", "/api/v1/namespaces/team-a/pods", pod("a-first", "team-a", "n1"))
    s.must("POST", b_pods, pod("b-second", "team-b", "n2"))
    s.must("DELETE", f"{b_pods}/b-second", expect=(200, 202))
    s.must("POST", "/api/v1/namespaces/team-a/pods", pod("a-marker", "team-a", "n1"))
    seen = watch_until(s, TOKENS["alice"], "/api/v1/namespaces/team-a/pods?watch=1", "a-marker")
    check(all(ns == "team-a" for ns, _ in seen), f"team A's watch carried another's: {seen}")
    check(("team-a", "a-first") in seen, f"team A's watch missed its own pod: {seen}")

    # An agent touches only its own node's objects.
    agent = 0
    for method, path, body, ctype in [
            ("PATCH", "/api/v1/nodes/n2/status", {"status": {"phase": "Running"}}, merge),
            ("PATCH", "/api/v1/nodes/n2", {"metadata": {"labels": {"x": "y"}}}, merge),
            ("PATCH", b_pod + "/status", {"status": {"phase": "Failed"}}, merge),
            ("DELETE", b_pod, None, None),
            ("GET", "/api/v1/pods", None, None),
            ("GET", "/api/v1/namespaces/team-b/secrets/b-secret", None, None),
            ("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n2",
             {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
              "metadata": {"name": "n2", "namespace": "kube-node-lease"},
              "spec": {"holderIdentity": "n1"}}, None)]:
        agent += forbidden(s, "n1", method, path, body, ctype or "application/json")
    status, data = s.request(TOKENS["n2"], "GET", b_pod)
    check(status == 200, f"agent n2 reads the pod bound to it: {status} {data[:200]}")
    print(f"tenant: agent n1 refused on {agent} requests for node n2's objects")


if __name__ == "__main__":
    main(sys.argv[1])
