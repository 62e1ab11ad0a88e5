#!/usr/bin/python3
"""Bad input against the real `etna server`: every case gets a clear 4xx (or a closed
connection), never a crash or a hang, and the server keeps serving.

Oversized bodies (Content-Length and chunked), header floods, malformed, deep and oversized
JSON and YAML, unknown fields, a stale resourceVersion, missing and wrong tokens, another
namespace. Usage: bad_input_test.py ETNA_BINARY
"""
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile

MIB = 1024 * 1024


def start(etna, work):
    tokens = os.path.join(work, "users.csv")
    with open(tokens, "w") as f:
        f.write('alice-token,alice,1001,"ml-team"\n')
    rules = os.path.join(work, "rules.yaml")
    with open(rules, "w") as f:
        f.write("- user: alice\n  namespaces: [team-a]\n  resources: ['*']\n  access: write\n")
    proc = subprocess.Popen([etna, "server", "--data-dir", os.path.join(work, "data"),
                             "--listen", "127.0.0.1:0", "--tokens-file", tokens,
                             "--authorization-file", rules],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for line in proc.stdout:
        m = re.search(rb"serving https://127\.0\.0\.1:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    raise RuntimeError("etna server did not start")


class Raw:
    """One TLS connection that sends raw bytes and reads one response."""

    def __init__(self, port, ca):
        ctx = ssl.create_default_context(cafile=ca)
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.s = ctx.wrap_socket(sock, server_hostname="127.0.0.1")

    def send(self, data):
        try:
            self.s.sendall(data)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass  # the server may answer and close before reading everything

    def response(self):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.s.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        status = int(head.split(b" ")[1]) if head else 0
        m = re.search(rb"(?i)content-length: (\d+)", head)
        if m:
            while len(rest) < int(m.group(1)):
                chunk = self.s.recv(65536)
                if not chunk:
                    break
                rest += chunk
        return status, rest


def request(port, ca, method, path, body=None, token=None, content_type="application/json",
            extra=b""):
    r = Raw(port, ca)
    payload = body if isinstance(body, bytes) else (body or "").encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    head += f"Content-Length: {len(payload)}\r\n"
    r.send(head.encode() + extra + b"\r\n" + payload)
    return r.response()


def expect(what, got, want, body=b"", needle=None):
    if got != want:
        raise AssertionError(f"{what}: HTTP {got}, want {want}: {body[:300]!r}")
    if needle and needle.encode() not in body:
        raise AssertionError(f"{what}: reply lacks {needle!r}: {body[:300]!r}")
    print(f"ok  {what}: {got}")


def main():
    etna = sys.argv[1]
    work = tempfile.mkdtemp()
    proc = None
    try:
        proc, port = start(etna, work)
        data = os.path.join(work, "data")
        ca = os.path.join(data, "pki", "ca.crt")
        admin = open(os.path.join(data, "tokens.csv")).read().split(",")[0]
        cms = "/api/v1/namespaces/default/configmaps"

        status, body = request(port, ca, "POST", cms, "x" * (3 * MIB + 1), admin)
        expect("body over 3 MiB (Content-Length)", status, 413, body, "limit")

        r = Raw(port, ca)
        r.send(f"POST {cms} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {admin}\r\n"
               "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
        chunk = b"x" * 65536
        for _ in range(3 * 16 + 2):
            r.send(b"10000\r\n" + chunk + b"\r\n")
        r.send(b"0\r\n\r\n")
        status, body = r.response()
        expect("chunked body over 3 MiB", status, 413, body)

        flood = b"".join(b"X-Flood-%d: 1\r\n" % i for i in range(500))
        status, body = request(port, ca, "GET", "/healthz", extra=flood)
        expect("header flood", status, 431, body)

        status, body = request(port, ca, "POST", cms, '{"metadata": {', admin)
        expect("malformed JSON", status, 400, body, "invalid JSON")
        status, body = request(port, ca, "POST", cms, "[" * 1000 + "]" * 1000, admin)
        expect("JSON nested 1000 deep", status, 400, body, "nesting")
        status, body = request(port, ca, "POST", cms, "a: [" * 1, admin, "application/yaml")
        expect("malformed YAML", status, 400, body, "line")
        status, body = request(port, ca, "POST", cms, "- " * 200 + "x\n", admin,
                               "application/yaml")
        expect("YAML nested 200 deep", status, 400, body, "nesting")
        bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
            f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
            for p, c in zip("abcdefgh", "bcdefghi"))
        status, body = request(port, ca, "POST", cms, bomb, admin, "application/yaml")
        expect("YAML alias bomb", status, 400, body)
        status, body = request(port, ca, "POST", cms, "{}", admin, "text/html")
        expect("unsupported content type", status, 415, body)

        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1"},
              "data": {"k": "v"}, "dataTypo": {}}
        status, body = request(port, ca, "POST", cms + "?fieldValidation=Strict", json.dumps(cm),
                               admin)
        expect("unknown field, Strict", status, 400, body, 'unknown field \\"dataTypo\\"')
        del cm["dataTypo"]
        status, body = request(port, ca, "POST", cms, json.dumps(cm), admin)
        expect("create", status, 201, body)
        stale = json.loads(body)
        stale["data"] = {"k": "v2"}
        status, body = request(port, ca, "PUT", cms + "/c1", json.dumps(stale), admin)
        expect("update", status, 200, body)
        stale["data"] = {"k": "v3"}
        status, body = request(port, ca, "PUT", cms + "/c1", json.dumps(stale), admin)
        expect("stale resourceVersion", status, 409, body, "Conflict")

        status, body = request(port, ca, "GET", cms)
        expect("no token", status, 401, body)
        status, body = request(port, ca, "GET", cms, token="wrong-token")
        expect("wrong token", status, 401, body)
        for ns in ("team-a", "team-b"):
            status, body = request(port, ca, "POST", "/api/v1/namespaces",
                                   json.dumps({"metadata": {"name": ns}}), admin)
            expect(f"namespace {ns}", status, 201, body)
        status, body = request(port, ca, "GET", "/api/v1/namespaces/team-a/configmaps",
                               token="alice-token")
        expect("own namespace", status, 200, body)
        status, body = request(port, ca, "GET", "/api/v1/namespaces/team-b/configmaps",
                               token="alice-token")
        expect("another namespace", status, 403, body, "forbidden")

        r = Raw(port, ca)
        r.send(b"NOT-HTTP\r\n\r\n")
        status, body = r.response()
        expect("garbage request line", status, 400, body)
        status, body = request(port, ca, "GET", "/healthz")
        expect("still healthy", status, 200, body, "ok")
        print("PASS bad_input_test")
    finally:
        if proc:
            proc.terminate()
            proc.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
