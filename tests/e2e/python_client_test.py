#!/usr/bin/python3
"""Debian's python3-kubernetes against `etna server`.

CustomObjectsApi create/get/list (label and field selectors)/patch/delete of batch.volcano.sh
jobs; CoreV1Api list_namespaced_pod with a label selector, read_namespaced_pod_log, a watch.
Usage: python_client_test.py KUBECONFIG AGENT_PORT
"""
import sys
import threading

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

G, V, PLURAL = "batch.volcano.sh", "v1alpha1", "jobs"


def job(name, labels):
    return {
        "apiVersion": f"{G}/{V}",
        "kind": "Job",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "minAvailable": 1,
            "queue": "default",
            "tasks": [{
                "name": "worker",
                "replicas": 1,
                "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}],
                                      "restartPolicy": "Never"}},
            }],
        },
    }


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def main():
    kubeconfig, agent_port = sys.argv[1], int(sys.argv[2])
    config.load_kube_config(config_file=kubeconfig)
    co = client.CustomObjectsApi()
    core = client.CoreV1Api()

    created = co.create_namespaced_custom_object(G, V, "default", PLURAL,
                                                 job("pyjob", {"app": "py"}))
    check(created["metadata"]["name"] == "pyjob", "create returns the job")
    co.create_namespaced_custom_object(G, V, "default", PLURAL, job("other", {"app": "other"}))
    got = co.get_namespaced_custom_object(G, V, "default", PLURAL, "pyjob")
    check(got["spec"]["queue"] == "default", "get returns the stored job")

    by_label = co.list_namespaced_custom_object(G, V, "default", PLURAL, label_selector="app=py")
    check([i["metadata"]["name"] for i in by_label["items"]] == ["pyjob"], "label selector")
    by_field = co.list_namespaced_custom_object(G, V, "default", PLURAL,
                                                field_selector="metadata.name=other")
    check([i["metadata"]["name"] for i in by_field["items"]] == ["other"], "field selector")
    by_queue = co.list_namespaced_custom_object(G, V, "default", PLURAL,
                                                field_selector="spec.queue=default")
    check(len(by_queue["items"]) == 2, "spec.queue field selector")

    try:
        co.create_namespaced_custom_object(G, V, "default", PLURAL, job("pyjob", {}))
        raise AssertionError("a second create must fail")
    except ApiException as e:
        check(e.status == 409, f"duplicate create is 409, got {e.status}")

    patched = co.patch_namespaced_custom_object(G, V, "default", PLURAL, "pyjob",
                                                {"metadata": {"labels": {"tier": "gold"}}})
    check(patched["metadata"]["labels"]["tier"] == "gold", "merge patch")

    # A watch sees a job created after it started.
    seen = []
    w = watch.Watch()
    rv = co.list_namespaced_custom_object(G, V, "default", PLURAL)["metadata"]["resourceVersion"]

    def watcher():
        for event in w.stream(co.list_namespaced_custom_object, G, V, "default", PLURAL,
                              resource_version=rv, timeout_seconds=20):
            seen.append((event["type"], event["object"]["metadata"]["name"]))
            if event["object"]["metadata"]["name"] == "watched":
                w.stop()
                return

    t = threading.Thread(target=watcher)
    t.start()
    co.create_namespaced_custom_object(G, V, "default", PLURAL, job("watched", {}))
    t.join(30)
    check(("ADDED", "watched") in seen, f"watch saw the new job: {seen}")

    co.delete_namespaced_custom_object(G, V, "default", PLURAL, "other",
                                       body=client.V1DeleteOptions(propagation_policy="Foreground",
                                                                   grace_period_seconds=0))
    remaining = co.list_namespaced_custom_object(G, V, "default", PLURAL)
    check("other" not in [i["metadata"]["name"] for i in remaining["items"]], "delete")

    # Pods: typed list with a label selector, and logs through the agent.
    core.create_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "py-node"}})
    core.patch_node_status("py-node", {
        "status": {"addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
                   "daemonEndpoints": {"kubeletEndpoint": {"Port": agent_port}}}})
    for name, app in (("web-0", "web"), ("web-1", "web"), ("db-0", "db")):
        core.create_namespaced_pod("default", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": app}},
            "spec": {"containers": [{"name": "main", "image": "busybox"}]}})
    pods = core.list_namespaced_pod("default", label_selector="app=web")
    check(sorted(p.metadata.name for p in pods.items) == ["web-0", "web-1"], "pod label selector")
    check(pods.items[0].status.phase == "Pending", "a new pod is Pending")
    core.create_namespaced_pod_binding("web-0", "default", {
        "apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web-0"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "py-node"}},
        _preload_content=False)
    log = core.read_namespaced_pod_log("web-0", "default", tail_lines=2)
    check(log == "web-0/main line 9\nweb-0/main line 10\n", f"pod log: {log!r}")

    # A typed watch of pods decodes every event as V1Pod.
    w2 = watch.Watch()
    names = []
    for event in w2.stream(core.list_namespaced_pod, "default", timeout_seconds=2):
        names.append(event["object"].metadata.name)
        if len(names) == 3:
            w2.stop()
    check(sorted(names) == ["db-0", "web-0", "web-1"], f"typed pod watch: {names}")
    print("PASS python_client_test")


if __name__ == "__main__":
    main()
