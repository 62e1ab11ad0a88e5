#!/usr/bin/python3
"""Hostile clients against the real `etna server` (tests/e2e/hostile.py), each while a
well-behaved client keeps asking: every one of its requests must be answered, and each attack
must meet the defence meant for it.

- slowloris: 200 connections dribbling request heads; the victim is served meanwhile.
- header flood: endless header lines get 431 and the connection closed.
- unauthenticated large bodies: 401 on the head, before any of the body is read.
- authenticated large bodies past the server's budget (256 MiB): 429, not memory.
- a watch whose client never reads, on large objects: closed once 32 MiB are unread.
- 1,000 idle watches (more than a default open-file limit of 1,024 allows with the rest).

Figures (p99, RSS) come from bench/hostile_bench.py, not from here.
Usage: hostile_test.py ETNA_BINARY
"""
import asyncio
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import hostile  # noqa: E402
from cluster import check  # noqa: E402
from hostile_bench import start_server  # noqa: E402

MIB = hostile.MIB


async def under_attack(target, seconds, attack):
    """Runs `attack(tally)` beside a victim; returns the tally after checking the victim."""
    tally = hostile.Tally()
    victim = hostile.Victim(target, seconds, interval=0.1)
    await attack(tally)
    latencies, failures = await asyncio.get_running_loop().run_in_executor(None, victim.result)
    check(not failures, f"the victim failed {len(failures)} times: {sorted(set(failures))[:3]}")
    check(latencies, "the victim got no answer at all")
    return tally


async def main(etna):
    work = tempfile.mkdtemp(prefix="etna-hostile-")
    proc, t = start_server(etna, work, [])
    try:
        tally = await under_attack(t, 6, lambda tally: hostile.slowloris(t, 200, 5, tally))
        check(tally.opened == 200, f"slowloris: {tally}")
        print(f"slowloris: {tally}")

        tally = await under_attack(t, 4, lambda tally: hostile.header_flood(t, 10, 3, tally))
        check(tally.statuses.get("431", 0) >= 10 and set(tally.statuses) == {"431"},
              f"header flood: every answer must be 431: {tally}")
        print(f"header flood: {tally}")

        tally = await under_attack(t, 4, lambda tally: hostile.body_flood(t, 40, 3, tally))
        # Each is answered 401 at once (or, its answer lost to the reset that closing on
        # unread bytes makes, closed): none is left waiting while the server buffers it.
        check(set(tally.statuses) == {"401"} and
              tally.statuses["401"] + tally.closed_by_server == 40,
              f"unauthenticated bodies must get 401 on their heads: {tally}")
        print(f"unauthenticated bodies: {tally}")

        # 120 bodies of 3 MiB held open: 85 fit the 256 MiB budget, the rest get 429.
        tally = await under_attack(
            t, 8, lambda tally: hostile.body_flood(t, 120, 6, tally, token=t.token))
        check(tally.statuses.get("429", 0) >= 30,
              f"authenticated bodies past the budget must get 429: {tally}")
        print(f"authenticated bodies: {tally}")

        sock = hostile.stalled_watch_socket(t)
        created = hostile.write_configmaps(t, 60, MIB - 4096)
        check(created == 60, f"created {created} of 60 large ConfigMaps")
        check(hostile.socket_closed_by_peer(sock, timeout=5.0),
              "a watch that never reads 60 MiB of events must be closed by the server")
        sock.close()
        print("stalled watch: closed by the server")

        tally = await under_attack(t, 8, lambda tally: hostile.idle_watches(t, 1000, 6, tally))
        check(tally.statuses == {"200": 1000} and tally.closed_by_server == 0,
              f"1,000 idle watches must all be open: {tally}")
        print(f"idle watches: {tally}")
        check(proc.poll() is None, f"etna server exited with {proc.returncode}")
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    print("hostile: ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
