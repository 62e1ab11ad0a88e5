#!/usr/bin/python3
"""End to end: exec, an interactive terminal, cp and port-forward into containers, as a user
does them (`etna dev --runtime container`: runc; an image from a local registry).

  1. `kubectl exec POD -- sh -c 'exit 3'` exits 3 (WebSocket v5 with this kubectl, SPDY with
     kubectl 1.20 when it is installed); stdin reaches the command;
  2. `kubectl exec -it POD -- sh` under tmux: an interactive shell with the terminal's size;
  3. `kubectl cp POD:FILE` copies a file out (tar in the container);
  4. `kubectl port-forward` reaches the pod's HTTP server (both kubectls);
  5. the Python client's stream() runs a command with stdin and gets its exit code;
  6. a bad token is refused (401), and the agent refuses a request that does not carry the API
     server's ticket (403);
  7. `kubectl attach` follows a running container's output (both kubectls); a container with
     `stdin: true` (`kubectl run -i`) is refused by name.

Usage: streams_test.py ETNA_BINARY
"""
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dev import KUBECTL, Dev, wait_for  # noqa: E402
from registry import Registry  # noqa: E402

KUBECTL_120 = "/opt/etna/kubectl-1.20/usr/bin/kubectl"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def web_pod(image, port):
    script = (f"mkdir -p /www && echo hello from the pod > /www/index.html && "
              f"exec httpd -f -p {port} -h /www")
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
            "spec": {"terminationGracePeriodSeconds": 2,
                     "containers": [{"name": "main", "image": image,
                                     "command": ["sh", "-c", script]}]}}


def kubectl(dev, *args, binary=KUBECTL, stdin=None):
    return subprocess.run([binary, "--kubeconfig", dev.kubeconfig] + list(args), text=True,
                          input=stdin, capture_output=True, timeout=60)


def check_exec(dev, binary):
    r = kubectl(dev, "exec", "web", "--", "sh", "-c", "echo out; echo err >&2; exit 3",
                binary=binary)
    assert r.returncode == 3, (binary, r.returncode, r.stdout, r.stderr)
    assert r.stdout == "out\n" and "err" in r.stderr, (r.stdout, r.stderr)
    r = kubectl(dev, "exec", "-i", "web", "--", "sh", "-c", "cat; hostname", binary=binary,
                stdin="through stdin\n")
    assert r.returncode == 0 and r.stdout == "through stdin\nweb\n", (r.stdout, r.stderr)


def check_terminal(dev):
    socket_name = f"etna-streams-{os.getpid()}"
    tmux = ["tmux", "-L", socket_name]
    command = f"{KUBECTL} --kubeconfig {dev.kubeconfig} exec -it web -- sh; echo EXITED $?; sleep 60"
    subprocess.run(tmux + ["new-session", "-d", "-s", "t", "-x", "100", "-y", "30", command],
                   check=True)
    try:
        def pane():
            return subprocess.run(tmux + ["capture-pane", "-p", "-t", "t"], capture_output=True,
                                  text=True).stdout
        wait_for(lambda: "#" in pane(), "the shell's prompt", timeout=30)
        subprocess.run(tmux + ["send-keys", "-t", "t", "echo answer=$((6*7)); stty size", "Enter"],
                       check=True)
        wait_for(lambda: "answer=42" in pane() and "30 100" in pane(),
                 "the interactive shell's answer", timeout=30)
        subprocess.run(tmux + ["send-keys", "-t", "t", "exit 5", "Enter"], check=True)
        wait_for(lambda: "EXITED 5" in pane(), "the shell's exit code", timeout=30)
    except AssertionError:
        print(pane())
        raise
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)


def check_copy(dev):
    out = os.path.join(dev.work, "copied.html")
    r = kubectl(dev, "cp", "web:/www/index.html", out)
    assert r.returncode == 0, r.stderr
    assert open(out).read() == "hello from the pod\n", open(out).read()


def check_port_forward(dev, binary):
    local = free_port()
    pf = subprocess.Popen([binary, "--kubeconfig", dev.kubeconfig, "port-forward", "pod/web",
                           f"{local}:{dev.web_port}"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    try:
        line = pf.stdout.readline()
        assert "Forwarding from" in line, line
        for _ in range(2):  # two connections through one port-forward
            body = urllib.request.urlopen(f"http://127.0.0.1:{local}/index.html",
                                          timeout=10).read().decode()
            assert body == "hello from the pod\n", body
    finally:
        pf.terminate()
        pf.wait(timeout=10)


def check_python_client(dev):
    from kubernetes import client, config
    from kubernetes.stream import stream
    config.load_kube_config(dev.kubeconfig)
    api = client.CoreV1Api()
    out = stream(api.connect_get_namespaced_pod_exec, "web", "default",
                 command=["sh", "-c", "echo from python"], stderr=True, stdin=False,
                 stdout=True, tty=False)
    assert out == "from python\n", out
    resp = stream(api.connect_get_namespaced_pod_exec, "web", "default",
                  command=["sh", "-c", "read x; echo got $x; exit 4"], stderr=True, stdin=True,
                  stdout=True, tty=False, _preload_content=False)
    resp.write_stdin("hello\n")
    resp.run_forever(timeout=30)
    assert resp.read_stdout() == "got hello\n"
    assert resp.returncode == 4, resp.returncode


def check_attach(dev, binary):
    attach = subprocess.Popen([binary, "--kubeconfig", dev.kubeconfig, "attach", "ticker"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []  # kubectl's own notes first ("If you don't see a command prompt...")
        while len([x for x in lines if re.match(r"tick \d+$", x.strip())]) < 2:
            lines.append(attach.stdout.readline())
            assert lines[-1] and len(lines) < 12, lines
    finally:
        attach.terminate()
        attach.wait(timeout=10)
    r = kubectl(dev, "run", "shell", "--image=busybox", "-i", "--restart=Never", "--", "sh",
                stdin="")
    assert r.returncode != 0 and "spec.containers[0].stdin" in r.stderr, r.stderr


def check_refusals(dev):
    r = kubectl(dev, "--token", "nobody", "exec", "web", "--", "true")
    assert r.returncode != 0 and "Unauthorized" in r.stderr, r.stderr
    node = json.loads(dev.k("get", "pod", "web", "-o", "json"))["spec"]["nodeName"]
    port = json.loads(dev.k("get", "node", node, "-o", "json"))["status"]["daemonEndpoints"][
        "kubeletEndpoint"]["Port"]
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/exec/default/web/main?command=true&stdout=true",
        headers={"Connection": "Upgrade", "Upgrade": "SPDY/3.1",
                 "X-Stream-Protocol-Version": "v4.channel.k8s.io"})
    try:
        urllib.request.urlopen(request, timeout=10)
        raise AssertionError("the agent ran a command without the API server's ticket")
    except urllib.error.HTTPError as e:
        assert e.code == 403, e.code


def main():
    etna = sys.argv[1]
    work = subprocess.run(["mktemp", "-d", "/tmp/etna-streams-XXXXXX"], capture_output=True,
                          text=True, check=True).stdout.strip()
    with Registry(work) as reg:
        image = reg.push_busybox("tools/busybox:1", os.path.join(work, "image"))
        with Dev(etna, args=["--runtime", "container"], work=os.path.join(work, "dev")) as dev:
            dev.web_port = free_port()
            path = os.path.join(dev.work, "web.json")
            with open(path, "w") as f:
                json.dump(web_pod(image, dev.web_port), f)
            dev.k("apply", "-f", path)
            wait_for(lambda: json.loads(dev.k("get", "pod", "web", "-o", "json"))
                     .get("status", {}).get("phase") == "Running", "the web pod runs")
            clients = [KUBECTL] + ([KUBECTL_120] if os.path.exists(KUBECTL_120) else [])
            for binary in clients:
                check_exec(dev, binary)
            print("1. kubectl exec: exit code 3 and stdin with " + ", ".join(clients), flush=True)
            check_terminal(dev)
            print("2. kubectl exec -it under tmux: an interactive shell, 30x100", flush=True)
            check_copy(dev)
            print("3. kubectl cp copied a file out", flush=True)
            for binary in clients:
                check_port_forward(dev, binary)
            print("4. kubectl port-forward reached the pod's HTTP server", flush=True)
            check_python_client(dev)
            print("5. the Python client's stream(): output, stdin, exit code 4", flush=True)
            check_refusals(dev)
            print("6. a bad token and a request without a ticket are refused", flush=True)
            ticker = web_pod(image, 0)
            ticker["metadata"]["name"] = "ticker"
            ticker["spec"]["containers"][0]["command"] = [
                "sh", "-c", "i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.2; done"]
            with open(path, "w") as f:
                json.dump(ticker, f)
            dev.k("apply", "-f", path)
            wait_for(lambda: json.loads(dev.k("get", "pod", "ticker", "-o", "json"))
                     .get("status", {}).get("phase") == "Running", "the ticker runs")
            for binary in clients:
                check_attach(dev, binary)
            print("7. kubectl attach follows the output; stdin: true is refused", flush=True)
    subprocess.run(["rm", "-rf", work])
    print("PASS streams_test")


if __name__ == "__main__":
    main()
