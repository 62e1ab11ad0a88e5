"""Real etcd members (Debian's etcd-server) on loopback for end-to-end tests: started under one
directory on free ports, each waited for until /health says so, killed with SIGKILL and
restarted with its data. With tls=True the client URLs are https with client certificate
authentication, on certificates made here with openssl (work/pki: ca.crt, client.crt/.key).

    etcd = EtcdCluster(3, work_dir, tls=True)
    etcd.kill(0); etcd.restart(0)
    etcd.move_leader_off(0)     # etcd's move-leader, when member 0 leads
    ...
    etcd.stop()
"""
import json
import os
import signal
import socket
import ssl
import subprocess
import time
import urllib.request

ETCD = "/usr/bin/etcd"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_certificates(pki):
    """A CA, and one certificate for 127.0.0.1 good for serving and as a client (etcd's own
    gateway connects to itself with it); returns the paths."""
    os.makedirs(pki, exist_ok=True)
    p = {n: os.path.join(pki, n) for n in ("ca.crt", "ca.key", "cert.crt", "cert.key",
                                           "cert.csr", "ext.cnf")}
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run = lambda *a: subprocess.run(["openssl"] + list(a), check=True, capture_output=True)
    run("req", "-x509", *ec, "-keyout", p["ca.key"], "-out", p["ca.crt"], "-days", "2",
        "-subj", "/CN=etna-test-etcd-ca")
    run("req", *ec, "-keyout", p["cert.key"], "-out", p["cert.csr"], "-subj", "/CN=etcd")
    with open(p["ext.cnf"], "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n")
    run("x509", "-req", "-in", p["cert.csr"], "-CA", p["ca.crt"], "-CAkey", p["ca.key"],
        "-CAcreateserial", "-out", p["cert.crt"], "-days", "2", "-extfile", p["ext.cnf"])
    return p


class EtcdCluster:
    def __init__(self, members, work, fsync=True, tls=False):
        if not os.access(ETCD, os.X_OK):
            raise RuntimeError(f"{ETCD} is missing: run scripts/install-deps.sh")
        self.work = work
        self.fsync = fsync
        self.scheme = "https" if tls else "http"
        self.pki = make_certificates(os.path.join(work, "pki")) if tls else None
        self.members = [{"name": f"m{i}", "client": free_port(), "peer": free_port(),
                         "proc": None} for i in range(members)]
        self.initial = ",".join(f"{m['name']}=http://127.0.0.1:{m['peer']}" for m in self.members)
        for m in self.members:
            self._spawn(m, existing=False)
        for m in self.members:
            self._await_healthy(m)

    def urls(self):
        return [f"{self.scheme}://127.0.0.1:{m['client']}" for m in self.members]

    def client_flags(self):
        """`etna server`'s flags for this cluster."""
        flags = ["--etcd-servers", ",".join(self.urls())]
        if self.pki:
            flags += ["--etcd-cafile", self.pki["ca.crt"], "--etcd-certfile",
                      self.pki["cert.crt"], "--etcd-keyfile", self.pki["cert.key"]]
        return flags

    def _spawn(self, m, existing):
        args = [ETCD, "--name", m["name"], "--data-dir", os.path.join(self.work, m["name"]),
                "--listen-client-urls", f"{self.scheme}://127.0.0.1:{m['client']}",
                "--advertise-client-urls", f"{self.scheme}://127.0.0.1:{m['client']}",
                "--listen-peer-urls", f"http://127.0.0.1:{m['peer']}",
                "--initial-advertise-peer-urls", f"http://127.0.0.1:{m['peer']}",
                "--initial-cluster", self.initial,
                "--initial-cluster-state", "existing" if existing else "new",
                "--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn"]
        if not self.fsync:
            args.append("--unsafe-no-fsync")
        if self.pki:
            args += ["--cert-file", self.pki["cert.crt"], "--key-file", self.pki["cert.key"],
                     "--trusted-ca-file", self.pki["ca.crt"], "--client-cert-auth"]
        log = open(os.path.join(self.work, f"etcd-{m['name']}.log"), "ab")
        m["proc"] = subprocess.Popen(args, stdout=log, stderr=log, start_new_session=True)

    def _context(self):
        """The TLS context for the members' client URLs (None without tls)."""
        if not self.pki:
            return None
        context = ssl.create_default_context(cafile=self.pki["ca.crt"])
        context.load_cert_chain(self.pki["cert.crt"], self.pki["cert.key"])
        return context

    def _post(self, i, path, body):
        """POSTs `body` to member i's v3 JSON gateway; returns the answer."""
        req = urllib.request.Request(self.urls()[i] + path, json.dumps(body).encode())
        with urllib.request.urlopen(req, timeout=10, context=self._context()) as r:
            return json.loads(r.read())

    def leader(self):
        """Index of the member that leads the Raft group, as the first live member sees it."""
        live = [i for i, m in enumerate(self.members) if m["proc"]]
        ids = {self._post(i, "/v3/maintenance/status", {})["header"]["member_id"]: i
               for i in live}
        return ids[self._post(live[0], "/v3/maintenance/status", {})["leader"]]

    def move_leader_off(self, i):
        """Makes another member lead when member i does (etcd's move-leader)."""
        lead = self.leader()
        if lead != i:
            return
        target = (i + 1) % len(self.members)
        target_id = self._post(target, "/v3/maintenance/status", {})["header"]["member_id"]
        self._post(lead, "/v3/maintenance/transfer-leadership", {"targetID": target_id})
        if self.leader() == i:
            raise RuntimeError(f"etcd {self.members[i]['name']} still leads after move-leader")

    def _await_healthy(self, m, timeout=60):
        deadline = time.time() + timeout
        url = f"{self.scheme}://127.0.0.1:{m['client']}/health"
        context = self._context()
        while time.time() < deadline:
            if m["proc"].poll() is not None:
                raise RuntimeError(f"etcd {m['name']} exited; see {self.work}")
            try:
                with urllib.request.urlopen(url, timeout=1, context=context) as r:
                    if json.loads(r.read()).get("health") == "true":
                        return
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        raise RuntimeError(f"etcd {m['name']} not healthy after {timeout} s")

    def kill(self, i):
        proc = self.members[i]["proc"]
        if proc and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        self.members[i]["proc"] = None

    def restart(self, i):
        self._spawn(self.members[i], existing=True)
        self._await_healthy(self.members[i])

    def stop(self):
        for i in range(len(self.members)):
            self.kill(i)
