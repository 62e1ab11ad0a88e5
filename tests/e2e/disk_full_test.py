#!/usr/bin/python3
"""The server's data directory on a small filesystem that fills up (issue 17): a tmpfs of 16 MiB
mounted for the test. Writes get 507 InsufficientStorage naming the store file, reads, lists and
watches keep working, every acknowledged write is there (also after kill -9 and a restart), and
writes succeed again once space returns.

Needs root (mount); it fails, never skips, without it.
Usage: disk_full_test.py ETNA_BINARY
"""
import json
import os
import signal
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import check, start_etna_server  # noqa: E402


class Server:
    def __init__(self, etna, data):
        self.etna, self.data, self.port = etna, data, 0

    def start(self):
        self.proc, self.port = start_etna_server(self.etna, self.data,
                                                 f"127.0.0.1:{self.port}")
        self.token = open(os.path.join(self.data, "tokens.csv")).read().split(",")[0]
        self.ctx = ssl.create_default_context(cafile=os.path.join(self.data, "pki", "ca.crt"))

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def request(self, method, path, body=None):
        req = urllib.request.Request(
            f"https://127.0.0.1:{self.port}{path}", method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {self.token}",
                     "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())


def config_map(i):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}"},
            "data": {"blob": f"{i:06d}" + "x" * 60000}}


def main():
    etna = sys.argv[1]
    if os.geteuid() != 0:
        sys.exit("FAIL: disk_full_test needs root to mount a small tmpfs")
    mnt = tempfile.mkdtemp(prefix="etna-diskfull-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt], check=True)
    server = Server(etna, os.path.join(mnt, "server"))
    try:
        server.start()
        path = "/api/v1/namespaces/default/configmaps"
        watch = urllib.request.urlopen(urllib.request.Request(
            f"https://127.0.0.1:{server.port}{path}?watch=true&resourceVersion=0",
            headers={"Authorization": f"Bearer {server.token}"}), context=server.ctx,
            timeout=60)
        # Fill the filesystem with a filler file, then with writes until one is refused.
        filler = os.path.join(mnt, "filler")
        st = os.statvfs(mnt)
        with open(filler, "wb") as f:
            f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - 3 * 1024 * 1024))
        acked, refused = [], None
        for i in range(200):
            code, body = server.request("POST", path, config_map(i))
            if code == 201:
                acked.append(f"cm-{i}")
                continue
            refused = (code, body)
            break
        check(refused is not None, "the filesystem never filled up")
        code, body = refused
        check(code == 507 and body.get("reason") == "InsufficientStorage",
              f"a write on a full disk got {code} {body}")
        check("disk full" in body.get("message", ""), f"the message does not say why: {body}")
        check(len(acked) > 0, "nothing was written before the disk filled")
        # Reads, lists and the watch keep working.
        code, got = server.request("GET", f"{path}/{acked[-1]}")
        check(code == 200, f"a read on a full disk got {code}")
        code, listed = server.request("GET", path)
        names = {o["metadata"]["name"] for o in listed.get("items", [])}
        check(code == 200 and set(acked) <= names, f"a list on a full disk lost writes: {code}")
        seen = set()
        while not set(acked) <= seen:
            event = json.loads(watch.readline())
            seen.add(event["object"]["metadata"]["name"])
        refused_writes = 0
        for i in range(200, 205):
            code, _ = server.request("POST", path, config_map(i))
            refused_writes += code == 507
        check(refused_writes == 5, f"{5 - refused_writes} writes succeeded on a full disk")
        # Space returns: writes resume.
        os.remove(filler)
        code, body = server.request("POST", path, config_map(999))
        check(code == 201, f"after space returned a write got {code} {body}")
        acked.append("cm-999")
        # Every acknowledged write survives kill -9 and a restart.
        server.kill()
        server.start()
        code, listed = server.request("GET", path)
        names = {o["metadata"]["name"] for o in listed.get("items", [])}
        check(set(acked) <= names, f"lost after restart: {sorted(set(acked) - names)[:5]}")
        print(f"DISKFULL acked_before_full={len(acked) - 1} refused=6 resumed=1 lost=0")
    finally:
        if server.proc.poll() is None:
            server.kill()
        subprocess.run(["umount", "-l", mnt], capture_output=True)
        os.rmdir(mnt)
    print("PASS")


if __name__ == "__main__":
    main()
