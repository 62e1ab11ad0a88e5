#!/usr/bin/python3
"""BENCH hostile: how `etna server` serves a well-behaved client while others attack it
(`make bench-hostile`).

One `etna server` (SQLite, TLS). For each attack in turn (tests/e2e/hostile.py), a victim in
its own process GETs a small list on a fresh TLS connection 20 times a second for the attack's
length; the server's peak RSS is sampled every 100 ms. A baseline with no attack comes first.
Prints one line per attack:

    BENCH hostile attack=<name> clients=<n> victim_p99_ms=<x> victim_failures=<n> server_rss_mb=<peak> <what the attackers saw>

Usage: hostile_bench.py ETNA_BINARY [--seconds S] [--slowloris N] [--watches N] ...
"""
import argparse
import asyncio
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
import hostile  # noqa: E402
from cluster import start_etna_server  # noqa: E402


def start_server(etna, work, extra):
    """`etna server` on loopback with its data in `work`; (process, hostile.Target)."""
    data = os.path.join(work, "data")
    proc, port = start_etna_server(etna, data, args=extra,
                                   log_path=os.path.join(work, "server.log"))
    token = open(os.path.join(data, "tokens.csv")).read().split(",")[0]
    return proc, hostile.Target(port, os.path.join(data, "pki", "ca.crt"), token)


async def phase(name, clients, target, pid, seconds, attack):
    tally = hostile.Tally()
    victim = hostile.Victim(target, seconds)
    async with hostile.RssSampler(pid) as rss:
        if attack is not None:
            await attack(tally)
        else:
            await asyncio.sleep(seconds)
    latencies, failures = await asyncio.get_running_loop().run_in_executor(None, victim.result)
    print(f"BENCH hostile attack={name} clients={clients} "
          f"victim_p99_ms={hostile.p99(latencies):.1f} victim_failures={len(failures)} "
          f"server_rss_mb={rss.peak:.0f} {tally}", flush=True)
    for f in sorted(set(failures))[:5]:
        print(f"  victim failure: {f}", flush=True)


async def stalled_watch_phase(target, pid, seconds, events, value_bytes):
    sock = hostile.stalled_watch_socket(target)
    victim = hostile.Victim(target, seconds)
    loop = asyncio.get_running_loop()
    async with hostile.RssSampler(pid) as rss:
        created = await loop.run_in_executor(None, hostile.write_configmaps, target, events,
                                             value_bytes)
        closed = hostile.socket_closed_by_peer(sock, timeout=1.0)
    latencies, failures = await loop.run_in_executor(None, victim.result)
    sock.close()
    print(f"BENCH hostile attack=stalled-watch clients=1 "
          f"victim_p99_ms={hostile.p99(latencies):.1f} victim_failures={len(failures)} "
          f"server_rss_mb={rss.peak:.0f} events={created} event_mb={created * value_bytes / hostile.MIB:.0f} "
          f"closed_by_server={int(closed)}", flush=True)


async def main(args):
    work = tempfile.mkdtemp(prefix="etna-hostile-")
    proc, target = start_server(args.etna, work, args.server_arg or [])
    try:
        t, s, pid = target, args.seconds, proc.pid
        phases = {
            "none": lambda: phase("none", 0, t, pid, s, None),
            "slowloris": lambda: phase(
                "slowloris", args.slowloris, t, pid, s,
                lambda tally: hostile.slowloris(t, args.slowloris, s, tally)),
            "header-flood": lambda: phase(
                "header-flood", args.header_flood, t, pid, s,
                lambda tally: hostile.header_flood(t, args.header_flood, s, tally)),
            "body-flood": lambda: phase(
                "body-flood", args.body_flood, t, pid, s,
                lambda tally: hostile.body_flood(t, args.body_flood, s, tally)),
            "body-flood-authenticated": lambda: phase(
                "body-flood-authenticated", args.body_flood, t, pid, s,
                lambda tally: hostile.body_flood(t, args.body_flood, s, tally, token=t.token)),
            "idle-watches": lambda: phase(
                "idle-watches", args.watches, t, pid, s,
                lambda tally: hostile.idle_watches(t, args.watches, s, tally)),
            "stalled-watch": lambda: stalled_watch_phase(t, pid, s, args.events,
                                                         args.event_bytes),
        }
        for name in (args.only.split(",") if args.only else phases):
            await phases[name]()
        if proc.poll() is not None:
            print(f"etna server exited with {proc.returncode}", file=sys.stderr)
            return 1
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("etna")
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--slowloris", type=int, default=1000)
    p.add_argument("--header-flood", type=int, default=64)
    p.add_argument("--body-flood", type=int, default=400)
    p.add_argument("--watches", type=int, default=10000)
    p.add_argument("--events", type=int, default=300)
    p.add_argument("--event-bytes", type=int, default=256 * 1024)
    p.add_argument("--only", help="comma-separated attacks to run (default: all, in order)")
    p.add_argument("--server-arg", action="append", help="one more flag for etna server")
    sys.exit(asyncio.run(main(p.parse_args())))
