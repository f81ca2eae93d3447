"""HTTP ingest throughput: a simulated floor POSTed in batches to `serve-ingest` (real Kafka).

    python benchmarks/bench_ingest.py [--events 100000] [--batch 500] [--clients 1]

Starts the endpoint in a subprocess on a free port, producing to throw-away
topics (deleted at the end), so table-events is not touched.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

from tablewatch.ingest.client import post_events
from tablewatch.kafka_access import DEFAULT_BOOTSTRAP, KafkaAccess
from tablewatch.rules.decode import encode_event
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import choose
from tablewatch.topics import Topics

# the first two games: the floors of the published figures
FIRST_TWO = choose("let_it_ride,four_card_poker")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--clients", type=int, default=1)
    ap.add_argument("--bootstrap", default=os.environ.get("TABLEWATCH_KAFKA") or DEFAULT_BOOTSTRAP)
    args = ap.parse_args()

    raws: list[bytes] = []
    for event in Floor(12, args.events // 30, seed=5, games=FIRST_TWO).events():
        raws.append(encode_event(event))
        if len(raws) == args.events:
            break
    batches = [raws[i : i + args.batch] for i in range(0, len(raws), args.batch)]
    tag = uuid.uuid4().hex[:8]
    prefix = f"bench-ingest-{tag}-"
    topics = Topics.prefixed(prefix).names()[:2]  # what ingest writes: events, dead letters
    port = free_port()
    code = "from tablewatch.commands.ingest import serve_ingest; serve_ingest()"
    options = ["--port", str(port), "--bootstrap", args.bootstrap]
    options += ["--topics-prefix", prefix]
    server = subprocess.Popen([sys.executable, "-c", code, *options], stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{url}/health", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        post_events(f"{url}/events", batches[0][:10])  # warm up: producer, metadata, topic
        lock = threading.Lock()
        todo = list(reversed(batches))
        accepted = 0

        def client() -> None:
            nonlocal accepted
            while True:
                with lock:
                    if not todo:
                        return
                    batch = todo.pop()
                reply = post_events(f"{url}/events", batch)
                with lock:
                    accepted += reply["accepted"] + reply["duplicates"]

        threads = [threading.Thread(target=client) for _ in range(args.clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        print(
            f"{len(raws):,} events in {len(batches):,} POSTs of {args.batch}, {args.clients} "
            f"client(s): {elapsed:.2f} s, {len(raws) / elapsed:,.0f} events/s "
            f"({accepted:,} answered)"
        )
    finally:
        server.terminate()
        server.wait(60)
        from kafka.admin import KafkaAdminClient  # type: ignore[import-untyped, unused-ignore]

        admin = KafkaAdminClient(**KafkaAccess(args.bootstrap).kafka_python())
        try:
            admin.delete_topics([t for t in topics if t in set(admin.list_topics())])
        finally:
            admin.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
