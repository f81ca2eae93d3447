"""The live floor's stream: 50 open floor pages, each new finding delivered to all.

    python benchmarks/bench_stream.py [--clients 50] [--rate 5] [--seconds 60]
                                      [--tables 24] [--history-findings 1000000]
                                      [--history-events 10000000] [--interval 0.5] [--json]

A child process holds an embedded store (as the worker does) and serves the API over it
(uvicorn, the app of ``tablewatch serve-api``, its readers on the store): the store holds
``--history-findings`` findings spread over the last 60 days and ``--history-events`` raw
events (made with ``INSERT ... SELECT`` from ``numbers()``), so each poll reads its time
range of a store that is not small. The parent opens ``--clients`` streams
(``GET /api/v1/stream``, httpx, one asyncio loop), waits until each has the floor as it
stands, then the child writes findings at a steady ``--rate`` per second for
``--seconds``, one insert each, as the worker writes them (``judged_at`` and ``ts`` the
time of the insert, a third of them critical). Delivery latency of a finding to a client:
the time the client reads its ``finding`` event less the finding's ``ts`` (the start of
its insert; same machine, same clock). Reported: p50, p95, p99 and max over every
(finding, client) pair, the pairs never delivered, and the share delivered within 1 s
(the target: all of them), and apart, the time from a finding's ``ts`` to its publishing
by the feed (read and queued for every client). The feed polls every ``--interval``
seconds (the product's default 0.5 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script from a checkout: make the repo importable
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

DAY_MS = 86_400_000


def now_ms() -> int:
    return int(time.time() * 1000)


# --- the child: the store, the API, the writer ----------------------------------------


def fill(client: Any, tables: list[str], history_findings: int, history_events: int) -> None:
    """The directory, each table open now, and the history (findings and events of the
    last 60 days, none of them in the last day's window but for one in a hundred)."""
    now = now_ms()
    client.insert(
        "table_directory",
        [(t, "let_it_ride", "A", ["cam-1"], "{}", "0" * 64, now) for t in tables],
        column_names=["table_id", "game", "pit", "cameras", "config", "config_sha256",
                      "updated_at"],
    )  # fmt: skip
    client.insert(
        "raw_events",
        [(t, f"{t}-open", 0, now - 60_000, "table_open", "", "{}", -1, -1, now) for t in tables],
        column_names=["table_id", "event_id", "seq", "ts", "type", "round_id", "payload",
                      "kafka_partition", "kafka_offset", "ingested_at"],
    )  # fmt: skip
    names = "[" + ", ".join(f"'{t}'" for t in tables) + "]"
    n = len(tables)
    span = 60 * DAY_MS
    if history_events:
        client.command(
            "INSERT INTO raw_events (table_id, event_id, seq, ts, type, round_id, payload, "
            "kafka_partition, kafka_offset, ingested_at) SELECT "
            f"{names}[number % {n} + 1], concat('h-', toString(number)), number, "
            f"fromUnixTimestamp64Milli(toInt64({now - span} + intDiv(number * {span}, "
            f"{history_events}))), 'round_start', concat('r', toString(intDiv(number, 20))), "
            f"'{{}}', -1, -1, fromUnixTimestamp64Milli(toInt64({now - span})) "
            f"FROM numbers({history_events})"
        )
    if history_findings:
        client.command(
            "INSERT INTO findings (finding_id, table_id, round_id, start_event_id, check, "
            "severity, regulation, seat, bet, expected, actual, message, event_ids, ts, "
            "judged_at) SELECT concat('hf-', toString(number)), "
            f"{names}[number % {n} + 1], concat('hr', toString(number)), 'e', "
            "'WRONG_PAYOUT', ['critical', 'high', 'medium', 'low'][number % 4 + 1], 'x', 1, "
            "'bet_1', 100, 200, 'history', [], "
            f"fromUnixTimestamp64Milli(toInt64({now - span} + intDiv(number * {span}, "
            f"{history_findings}))), fromUnixTimestamp64Milli(toInt64({now - span} + "
            f"intDiv(number * {span}, {history_findings}))) FROM numbers({history_findings})"
        )
    client.command("OPTIMIZE TABLE findings FINAL")


def serve(args: argparse.Namespace) -> None:
    import uvicorn

    from tablewatch.api.app import create_app
    from tablewatch.api.floor_feed import FloorFeed
    from tablewatch.api.sources import ReaderPool, open_product_reader
    from tablewatch.store.client import connect
    from tablewatch.store.migrate import migrate

    dsn = f"chdb:///{args.dir}/store"
    client = connect(dsn)
    migrate(client)
    tables = [f"T-{i:02d}" for i in range(args.tables)]
    started = time.monotonic()
    fill(client, tables, args.history_findings, args.history_events)
    print(f"filled in {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
    from tablewatch.rules.events import ts_to_ms

    published: list[int] = []

    class TimedFeed(FloorFeed):
        """The feed, noting when each benchmark finding is published (read and queued)."""

        def publish(self, event: str, data: dict[str, Any], *, keep: bool = False) -> None:
            if event == "finding" and str(data["finding_id"]).startswith("bench-"):
                published.append(now_ms() - ts_to_ms(str(data["ts"])))
            super().publish(event, data, keep=keep)

    pool = ReaderPool(lambda: open_product_reader(dsn), size=4)
    app = create_app(pool, described_as=dsn)
    app.state.floor_feed = TimedFeed(pool, interval_s=args.interval)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=args.port, log_level="warning")
    )
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return
    columns = ["finding_id", "table_id", "round_id", "start_event_id", "check", "severity",
               "regulation", "seat", "bet", "expected", "actual", "message", "event_ids", "ts",
               "judged_at"]  # fmt: skip
    total = int(args.rate * args.seconds)
    first = time.monotonic()
    insert_ms: list[float] = []
    for i in range(total):
        time.sleep(max(0.0, first + i / args.rate - time.monotonic()))
        at = now_ms()
        severity = "critical" if i % 3 == 0 else "medium"
        client.insert(
            "findings",
            [(f"bench-{i:06d}", tables[i % len(tables)], f"br{i}", f"be{i}", "WRONG_PAYOUT",
              severity, "x", 1, "bet_1", 100, 200, "bench", [], at, at)],
            column_names=columns,
        )  # fmt: skip
        insert_ms.append(now_ms() - at)
    time.sleep(2)  # the last ones read
    published.sort()
    print(
        json.dumps(
            {
                "written": total,
                "insert_ms_p50": statistics.median(insert_ms),
                "published_p50_ms": published[len(published) // 2] if published else None,
                "published_p95_ms": published[int(len(published) * 0.95)] if published else None,
                "published_max_ms": published[-1] if published else None,
            }
        ),
        flush=True,
    )
    sys.stdin.readline()  # until the parent is done
    server.should_exit = True


# --- the parent: the clients ------------------------------------------------------------


async def client_stream(
    url: str, ready: asyncio.Event, got: dict[str, int], stop: asyncio.Event
) -> None:
    timeout = httpx.Timeout(30.0, read=None)
    async with httpx.AsyncClient(timeout=timeout) as http, http.stream("GET", url) as reply:
        event = ""
        async for line in reply.aiter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                if event == "strip":
                    ready.set()
                elif event == "finding":
                    data = json.loads(line[6:])
                    if data["finding_id"].startswith("bench-"):
                        got.setdefault(data["finding_id"], now_ms())
                        got[data["finding_id"] + "@ts"] = _ts_ms(data["ts"])
            if stop.is_set():
                return


def _ts_ms(ts: str) -> int:
    from tablewatch.rules.events import ts_to_ms

    return ts_to_ms(ts)


async def measure(args: argparse.Namespace, child: subprocess.Popen[str]) -> dict[str, Any]:
    url = f"http://127.0.0.1:{args.port}/api/v1/stream"
    readies = [asyncio.Event() for _ in range(args.clients)]
    gots: list[dict[str, int]] = [{} for _ in range(args.clients)]
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(client_stream(url, readies[i], gots[i], stop))
        for i in range(args.clients)
    ]
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 120)
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write("go\n")
    child.stdin.flush()
    written = json.loads(await asyncio.to_thread(child.stdout.readline))
    await asyncio.sleep(1)  # the last ones' delivery (the child waited 2 s already)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    total = written["written"]
    latencies: list[int] = []
    missing = 0
    for got in gots:
        for i in range(total):
            key = f"bench-{i:06d}"
            if key in got:
                latencies.append(got[key] - got[key + "@ts"])
            else:
                missing += 1
    latencies.sort()

    def pct(p: float) -> float:
        return (
            float(latencies[min(len(latencies) - 1, int(p * len(latencies)))])
            if latencies
            else float("nan")
        )

    return {
        "clients": args.clients,
        "findings": total,
        "rate_per_s": args.rate,
        "interval_s": args.interval,
        "history_findings": args.history_findings,
        "history_events": args.history_events,
        "pairs": args.clients * total,
        "delivered": len(latencies),
        "missing": missing,
        "p50_ms": pct(0.50),
        "p95_ms": pct(0.95),
        "p99_ms": pct(0.99),
        "max_ms": float(latencies[-1]) if latencies else float("nan"),
        "within_1s": sum(x <= 1000 for x in latencies) / max(1, args.clients * total),
        "insert_ms_p50": written["insert_ms_p50"],
        "published_p50_ms": written["published_p50_ms"],
        "published_p95_ms": written["published_p95_ms"],
        "published_max_ms": written["published_max_ms"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--rate", type=float, default=5.0, help="findings written per second")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--history-findings", type=int, default=1_000_000)
    parser.add_argument("--history-events", type=int, default=10_000_000)
    parser.add_argument("--interval", type=float, default=0.5, help="the feed's poll, seconds")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--dir", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args)
        return
    from tablewatch.services import free_port

    with tempfile.TemporaryDirectory(prefix="bench-stream-") as directory:
        port = args.port = free_port()
        child = subprocess.Popen(
            [sys.executable, __file__, "--serve", "--port", str(port), "--dir", directory,
             "--tables", str(args.tables), "--rate", str(args.rate),
             "--seconds", str(args.seconds), "--interval", str(args.interval),
             "--history-findings", str(args.history_findings),
             "--history-events", str(args.history_events)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert child.stdout is not None
            line = child.stdout.readline().strip()
            if line != "ready":
                raise SystemExit(f"the server did not start ({line!r})")
            result = asyncio.run(measure(args, child))
        finally:
            if child.stdin is not None:
                child.stdin.close()
            child.wait(timeout=30)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['clients']} clients, {result['findings']} findings at {result['rate_per_s']:g}/s "
        f"(feed poll {result['interval_s']:g} s; store: {result['history_findings']:,} findings, "
        f"{result['history_events']:,} events of history)\n"
        f"delivered {result['delivered']:,} of {result['pairs']:,} (finding, client) pairs, "
        f"missing {result['missing']}\n"
        f"latency p50 {result['p50_ms']:.0f} ms  p95 {result['p95_ms']:.0f} ms  "
        f"p99 {result['p99_ms']:.0f} ms  max {result['max_ms']:.0f} ms; "
        f"within 1 s: {result['within_1s']:.2%} (insert p50 {result['insert_ms_p50']:.0f} ms)\n"
        f"published by the feed (read, queued for every client): p50 "
        f"{result['published_p50_ms']} ms  p95 {result['published_p95_ms']} ms  "
        f"max {result['published_max_ms']} ms"
    )


if __name__ == "__main__":
    main()
