#!/usr/bin/python3
"""Crash test: concurrent clients create objects while `etna server` is killed with SIGKILL at
random moments and restarted. After every restart, every object that got a 2xx must be there
exactly once, unchanged; an object whose request got no reply may exist, but then unchanged.

With --etcd, two `etna server`s share a three-member etcd cluster (TLS with client certificates)
and the rounds alternate
between killing one server and killing one etcd member: a writer whose server lives must get
only 2xx answers (losing a member is invisible), both servers must list the same objects, and a
watch on one server resumed from a resourceVersion the other server gave must see every
acknowledged create exactly once.

Usage: crash_test.py ETNA_BINARY [ROUNDS] [CLIENTS] [--etcd]
"""
import http.client
import json
import os
import random
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time


from etcd import EtcdCluster


def start(etna, data_dir, extra_args=()):
    log = open(data_dir + ".log", "ab")
    proc = subprocess.Popen([etna, "server", "--data-dir", data_dir, "--listen", "127.0.0.1:0"] +
                            list(extra_args), stdout=subprocess.PIPE, stderr=log)
    for line in proc.stdout:
        m = re.search(rb"serving https://127\.0\.0\.1:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    raise RuntimeError("etna server did not start")


class Client:
    def __init__(self, port, ca_file, token):
        ctx = ssl.create_default_context(cafile=ca_file)
        self.conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def request(self, method, path, body=None):
        self.conn.request(method, path, body=json.dumps(body) if body is not None else None,
                          headers=self.headers)
        resp = self.conn.getresponse()
        return resp.status, resp.read()


def writer(port, ca, token, prefix, acked, maybe, stop, errors):
    seq = 0
    try:
        c = Client(port, ca, token)
    except OSError:
        return
    while not stop.is_set():
        name = f"{prefix}-{seq}"
        seq += 1
        value = "%032x" % random.getrandbits(128)
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                "data": {"v": value}}
        maybe[name] = value
        try:
            status, _ = c.request("POST", "/api/v1/namespaces/default/configmaps", body)
        except (OSError, http.client.HTTPException):
            return  # the server died: the outcome of this request is unknown
        if 200 <= status < 300:
            acked[name] = value
            del maybe[name]
        else:
            errors.append(f"create {name}: HTTP {status}")
            return


def verify(port, ca, token, acked, maybe):
    c = Client(port, ca, token)
    status, body = c.request("GET", "/api/v1/namespaces/default/configmaps")
    assert status == 200, status
    items = json.loads(body)["items"]
    names = [i["metadata"]["name"] for i in items]
    assert len(names) == len(set(names)), "an object is listed twice"
    stored = {i["metadata"]["name"]: i["data"]["v"] for i in items}
    for name, value in acked.items():
        assert name in stored, f"acknowledged object {name} is lost"
        assert stored[name] == value, f"acknowledged object {name} changed"
    for name, value in maybe.items():
        if name in stored:
            assert stored[name] == value, f"unacknowledged object {name} has other data"
    unknown = set(stored) - set(acked) - set(maybe)
    assert not unknown, f"objects nobody wrote: {sorted(unknown)[:5]}"
    # Objects that survived without an acknowledgement now count as written.
    for name in list(maybe):
        if name in stored:
            acked[name] = maybe.pop(name)
        else:
            del maybe[name]
    return len(stored)


def watched_creates(port, ca, token, resource_version):
    """The names of the ADDED events a watch from resource_version sees within 2 s."""
    c = Client(port, ca, token)
    c.conn.request("GET", "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=2"
                   f"&resourceVersion={resource_version}", headers=c.headers)
    resp = c.conn.getresponse()
    assert resp.status == 200, f"watch from {resource_version}: HTTP {resp.status}"
    names = []
    for line in resp:
        line = line.strip()
        if line:
            event = json.loads(line)
            assert event["type"] != "ERROR", f"watch from {resource_version}: {event}"
            if event["type"] == "ADDED":
                names.append(event["object"]["metadata"]["name"])
    return names


def list_revision(port, ca, token):
    status, body = Client(port, ca, token).request("GET", "/api/v1/namespaces/default/configmaps")
    assert status == 200, status
    return json.loads(body)["metadata"]["resourceVersion"]


def main_etcd(etna, rounds, clients, work):
    """Two servers on one etcd; even rounds kill a server, odd rounds an etcd member."""
    etcd = EtcdCluster(3, work, tls=True)
    flags = etcd.client_flags()
    dirs = {s: os.path.join(work, s) for s in ("a", "b")}
    procs, ports = {}, {}
    procs["a"], ports["a"] = start(etna, dirs["a"], flags)
    # The second server shares the first one's CA, serving certificate and tokens, as an
    # operator copies them (docs/ha.md).
    shutil.copytree(dirs["a"], dirs["b"])
    ca = os.path.join(dirs["a"], "pki", "ca.crt")
    token = open(os.path.join(dirs["a"], "tokens.csv")).read().split(",")[0]
    acked, maybe, errors = {}, {}, []
    try:
        for r in range(rounds):
            for s in dirs:
                if s not in procs:
                    procs[s], ports[s] = start(etna, dirs[s], flags)
            total = verify(ports["a"], ca, token, acked, maybe)
            assert verify(ports["b"], ca, token, acked, maybe) == total, "the servers differ"
            since = list_revision(ports["a"], ca, token)
            victim = "ab"[(r // 2) % 2] if r % 2 == 0 else None
            member = (r // 2) % 3
            stop = threading.Event()
            round_errors = []
            threads = [threading.Thread(
                target=writer, args=(ports["ab"[i % 2]], ca, token, f"r{r}c{i}", acked, maybe,
                                     stop, errors if "ab"[i % 2] != victim else round_errors))
                       for i in range(clients)]
            for t in threads:
                t.start()
            time.sleep(random.uniform(0.05, 0.6))  # a random moment to crash at
            if victim:
                procs[victim].send_signal(signal.SIGKILL)
                procs.pop(victim).wait()
            else:
                etcd.kill(member)
                time.sleep(0.5)  # writes go on without it
            stop.set()
            for t in threads:
                t.join()
            if not victim:
                etcd.restart(member)
            assert not errors, f"round {r}: a live server answered an error: {errors[:3]}"
            live = "b" if victim == "a" else "a"
            seen = watched_creates(ports[live], ca, token, since)
            assert len(seen) == len(set(seen)), f"round {r}: a create was watched twice"
            missing = {n for n in acked if n.startswith(f"r{r}c")} - set(seen)
            assert not missing, f"round {r}: acknowledged creates not watched: {sorted(missing)[:5]}"
            what = f"server {victim}" if victim else f"etcd member {member}"
            print(f"round {r}: killed {what}; {total} objects verified on both servers, "
                  f"{len(acked)} acknowledged so far", flush=True)
        for s in dirs:
            if s not in procs:
                procs[s], ports[s] = start(etna, dirs[s], flags)
        total = verify(ports["a"], ca, token, acked, maybe)
        assert verify(ports["b"], ca, token, acked, maybe) == total, "the servers differ"
        assert len(acked) > 0, "no write was acknowledged"
        print(f"PASS crash_test --etcd: {rounds} rounds of SIGKILL (servers and etcd members), "
              f"{total} objects, all acknowledged writes intact on both servers")
    finally:
        for p in procs.values():
            p.send_signal(signal.SIGTERM)
            p.wait()
        etcd.stop()


def main():
    etcd = "--etcd" in sys.argv
    args = [a for a in sys.argv if a != "--etcd"]
    etna = args[1]
    rounds = int(args[2]) if len(args) > 2 else 20
    clients = int(args[3]) if len(args) > 3 else 8
    if etcd:
        work = tempfile.mkdtemp()
        try:
            main_etcd(etna, rounds, clients, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    random.seed(os.environ.get("CRASH_SEED", "42"))
    work = tempfile.mkdtemp()
    data_dir = os.path.join(work, "data")
    acked, maybe = {}, {}
    try:
        for r in range(rounds):
            proc, port = start(etna, data_dir)
            ca = os.path.join(data_dir, "pki", "ca.crt")
            token = open(os.path.join(data_dir, "tokens.csv")).read().split(",")[0]
            total = verify(port, ca, token, acked, maybe)
            stop = threading.Event()
            errors = []
            threads = [threading.Thread(target=writer, args=(port, ca, token, f"r{r}c{i}", acked,
                                                             maybe, stop, errors))
                       for i in range(clients)]
            for t in threads:
                t.start()
            time.sleep(random.uniform(0.05, 0.6))  # a random moment to crash at
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            stop.set()
            for t in threads:
                t.join()
            assert not errors, f"round {r}: {errors[:3]}"
            print(f"round {r}: {total} objects verified, {len(acked)} acknowledged so far",
                  flush=True)
        proc, port = start(etna, data_dir)
        total = verify(port, ca, token, acked, maybe)
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        assert len(acked) > 0, "no write was acknowledged"
        print(f"PASS crash_test: {rounds} SIGKILL rounds, {total} objects, all acknowledged "
              f"writes intact")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
