#!/usr/bin/python3
"""Crash test: concurrent clients create objects while `etna server` is killed with SIGKILL at
random moments and restarted. After every restart, every object that got a 2xx must be there
exactly once, unchanged; an object whose request got no reply may exist, but then unchanged.

Usage: crash_test.py ETNA_BINARY [ROUNDS] [CLIENTS]
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


def start(etna, data_dir):
    log = open(os.path.join(os.path.dirname(data_dir), "server.log"), "ab")
    proc = subprocess.Popen([etna, "server", "--data-dir", data_dir, "--listen", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=log)
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


def writer(port, ca, token, prefix, acked, maybe, stop):
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
            raise RuntimeError(f"create {name}: HTTP {status}")


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


def main():
    etna = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    clients = int(sys.argv[3]) if len(sys.argv) > 3 else 8
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
            threads = [threading.Thread(target=writer,
                                        args=(port, ca, token, f"r{r}c{i}", acked, maybe, stop))
                       for i in range(clients)]
            for t in threads:
                t.start()
            time.sleep(random.uniform(0.05, 0.6))  # a random moment to crash at
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            stop.set()
            for t in threads:
                t.join()
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
