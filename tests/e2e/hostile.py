"""Hostile clients against a running `etna server`, and a well-behaved one that measures how the
server treats everybody else meanwhile. Used by bench/hostile_bench.py (the figures) and
tests/e2e/hostile_test.py (the outcomes).

Attacks (asyncio, many sockets in one process):
  slowloris(n)        n TLS connections each sending a request head one byte a second
  header_flood(n)     n connections sending header lines as fast as they can, reconnecting
  body_flood(n)       n connections each sending a request body of the server's largest size,
                      all but the last byte at once, then one byte a second
  idle_watches(n)     n authenticated watches on a namespace where nothing happens
  stalled_watch()     one watch that never reads while a writer creates big objects it matches

The victim (Victim, its own process so the attackers' event loop does not delay its clock)
GETs a small list on a fresh TLS connection every `interval` seconds and records each latency
or failure.
"""
import asyncio
import json
import multiprocessing
import socket
import ssl
import time

from cluster import rss_mb

MIB = 1024 * 1024


class Target:
    """Where the server listens, its CA and an admin token."""

    def __init__(self, port, ca, token, host="127.0.0.1"):
        self.host, self.port, self.ca, self.token = host, port, ca, token

    def ssl_context(self):
        ctx = ssl.create_default_context(cafile=self.ca)
        ctx.check_hostname = False
        return ctx


class RssSampler:
    """The peak RSS of a process while in a `with` block (sampled every 100 ms)."""

    def __init__(self, pid):
        self.pid, self.peak, self._task = pid, 0.0, None

    async def _run(self):
        while True:
            self.peak = max(self.peak, rss_mb(self.pid) or 0.0)
            await asyncio.sleep(0.1)

    async def __aenter__(self):
        self.peak = rss_mb(self.pid) or 0.0
        self._task = asyncio.ensure_future(self._run())
        return self

    async def __aexit__(self, *exc):
        self._task.cancel()
        self.peak = max(self.peak, rss_mb(self.pid) or 0.0)


# ---- the victim ----

def _victim_main(target, seconds, interval, out):
    import http.client
    latencies, failures = [], []
    ctx = target.ssl_context()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.monotonic()
        try:
            conn = http.client.HTTPSConnection(target.host, target.port, context=ctx, timeout=10)
            conn.request("GET", "/api/v1/namespaces/default/configmaps?limit=1",
                         headers={"Authorization": f"Bearer {target.token}"})
            resp = conn.getresponse()
            resp.read()
            conn.close()
            if resp.status == 200:
                latencies.append((time.monotonic() - start) * 1000)
            else:
                failures.append(f"HTTP {resp.status}")
        except Exception as e:  # noqa: BLE001 — every failure is a figure
            failures.append(f"{type(e).__name__}: {e}")
        rest = interval - (time.monotonic() - start)
        if rest > 0:
            time.sleep(rest)
    out.put((latencies, failures))


class Victim:
    """A well-behaved client in its own process for `seconds`; .result() gives
    (latencies_ms, failures)."""

    def __init__(self, target, seconds, interval=0.05):
        self._queue = multiprocessing.Queue()
        self._proc = multiprocessing.Process(target=_victim_main,
                                             args=(target, seconds, interval, self._queue))
        self._proc.start()

    def result(self):
        latencies, failures = self._queue.get()
        self._proc.join()
        return latencies, failures


def p99(latencies):
    if not latencies:
        return float("nan")
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


# ---- attacks ----

async def _open(target, tls=True):
    return await asyncio.open_connection(target.host, target.port,
                                         ssl=target.ssl_context() if tls else None,
                                         server_hostname=target.host if tls else None)


def _raise_nofile():
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Tally:
    """What an attack's connections saw: opened, closed by the server, answers by status."""

    def __init__(self):
        self.opened = 0
        self.failed_to_open = 0
        self.closed_by_server = 0
        self.statuses = {}

    def status(self, line):
        parts = line.split()
        code = parts[1].decode() if len(parts) > 1 else "?"
        self.statuses[code] = self.statuses.get(code, 0) + 1

    def __str__(self):
        return (f"opened={self.opened} failed_to_open={self.failed_to_open} "
                f"closed_by_server={self.closed_by_server} statuses={self.statuses}")


async def _open_counted(target, tally, tls=True):
    try:
        reader, writer = await _open(target, tls)
    except (OSError, ssl.SSLError, asyncio.TimeoutError):
        tally.failed_to_open += 1
        return None, None
    tally.opened += 1
    return reader, writer


async def _read_status(reader, tally):
    try:
        line = await reader.readline()
    except (OSError, ssl.SSLError):
        line = b""
    if line:
        tally.status(line)
    else:
        tally.closed_by_server += 1


async def slowloris(target, n, seconds, tally):
    """n connections each dribbling one byte of a request head per second for `seconds`."""
    async def one():
        reader, writer = await _open_counted(target, tally)
        if writer is None:
            return
        head = (f"GET /api/v1/namespaces HTTP/1.1\r\nHost: {target.host}\r\nX-Slow: "
                + "a" * 10000).encode()
        end = time.monotonic() + seconds
        try:
            for byte in head:
                if time.monotonic() >= end:
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(1)
                if reader.at_eof():
                    tally.closed_by_server += 1
                    return
        except (OSError, ssl.SSLError):
            tally.closed_by_server += 1
        finally:
            writer.close()
    await asyncio.gather(*(one() for _ in range(n)))


async def header_flood(target, n, seconds, tally):
    """n connections sending endless header lines; each answer (431, read as it arrives) is
    followed by a new connection until `seconds` have passed."""
    end = time.monotonic() + seconds
    line = b"X-Flood: " + b"f" * 1000 + b"\r\n"

    async def one():
        while time.monotonic() < end:
            reader, writer = await _open_counted(target, tally)
            if writer is None:
                await asyncio.sleep(0.1)
                continue
            answer = asyncio.ensure_future(reader.readline())
            try:
                writer.write(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n")
                while (time.monotonic() < end and not answer.done() and
                       not writer.transport.is_closing()):
                    writer.write(line * 16)
                    await writer.drain()
                    await asyncio.sleep(0)  # lets the answer's read run
            except (OSError, ssl.SSLError):
                pass
            await _tally_answer(answer, tally, max(0.1, end - time.monotonic()))
            writer.close()
    await asyncio.gather(*(one() for _ in range(n)))


async def _tally_answer(answer, tally, timeout):
    """Counts the status line `answer` (a readline) brings, or a close; not a timeout."""
    try:
        line = await asyncio.wait_for(answer, timeout)
        if line:
            tally.status(line)
        else:
            tally.closed_by_server += 1
    except asyncio.TimeoutError:
        pass
    except (OSError, ssl.SSLError):
        tally.closed_by_server += 1


async def body_flood(target, n, seconds, tally, body_bytes=3 * MIB, token=None):
    """n connections each POSTing a body of `body_bytes`: all but its last byte at once, then
    nothing until `seconds` have passed. With `token` the requests are authenticated. An answer
    that comes while the body is being sent (401, 429) is read as it arrives."""
    async def one():
        reader, writer = await _open_counted(target, tally)
        if writer is None:
            return
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        head = (f"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n{auth}"
                f"Content-Type: application/json\r\nContent-Length: {body_bytes}\r\n\r\n")
        answer = asyncio.ensure_future(reader.readline())
        try:
            writer.write(head.encode())
            chunk = b" " * (256 * 1024)
            sent = 0
            while sent < body_bytes - 1 and not answer.done() and not writer.transport.is_closing():
                piece = chunk[:min(len(chunk), body_bytes - 1 - sent)]
                writer.write(piece)
                await writer.drain()
                await asyncio.sleep(0)  # lets the answer's read run
                sent += len(piece)
        except (OSError, ssl.SSLError):
            pass
        await _tally_answer(answer, tally, max(0.1, seconds - 0.5))  # none: still held
        writer.close()
    await asyncio.gather(*(one() for _ in range(n)))


async def idle_watches(target, n, seconds, tally, namespace="idle"):
    """n authenticated watches on an empty namespace, held for `seconds`."""
    sem = asyncio.Semaphore(200)  # handshakes at once

    async def one():
        async with sem:
            reader, writer = await _open_counted(target, tally)
            if writer is None:
                return
            writer.write((f"GET /api/v1/namespaces/{namespace}/pods?watch=1 HTTP/1.1\r\n"
                          f"Host: x\r\nAuthorization: Bearer {target.token}\r\n\r\n").encode())
            await _read_status(reader, tally)
        try:
            await asyncio.wait_for(reader.read(), seconds)
            tally.closed_by_server += 1
        except (asyncio.TimeoutError, OSError, ssl.SSLError):
            pass
        finally:
            writer.close()
    await asyncio.gather(*(one() for _ in range(n)))


def stalled_watch_socket(target, namespace="default"):
    """A blocking TLS socket whose watch request is sent and whose answer is never read
    (a small receive buffer, so the server meets back-pressure at once)."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect((target.host, target.port))
    s = target.ssl_context().wrap_socket(raw, server_hostname=target.host)
    s.sendall((f"GET /api/v1/namespaces/{namespace}/configmaps?watch=1 HTTP/1.1\r\nHost: x\r\n"
               f"Authorization: Bearer {target.token}\r\n\r\n").encode())
    return s


def socket_closed_by_peer(s, timeout=0.0):
    """Drains what `s` has and says whether the server has closed it."""
    s.settimeout(timeout if timeout else 0.001)
    try:
        while True:
            data = s.recv(1 << 20)
            if not data:
                return True
    except (socket.timeout, ssl.SSLWantReadError, BlockingIOError):
        return False
    except (OSError, ssl.SSLError):
        return True


def write_configmaps(target, count, value_bytes, namespace="default", prefix="big"):
    """Creates `count` ConfigMaps with one value of `value_bytes`; returns how many got 201."""
    import http.client
    ctx = target.ssl_context()
    conn = http.client.HTTPSConnection(target.host, target.port, context=ctx, timeout=30)
    created = 0
    value = "v" * value_bytes
    for i in range(count):
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": f"{prefix}-{i}-{time.monotonic_ns()}"},
                           "data": {"v": value}})
        conn.request("POST", f"/api/v1/namespaces/{namespace}/configmaps", body=body,
                     headers={"Authorization": f"Bearer {target.token}",
                              "Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        created += resp.status == 201
    conn.close()
    return created


_raise_nofile()
