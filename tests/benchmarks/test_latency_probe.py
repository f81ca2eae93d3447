"""The latency benchmarks' harness: a round counts as queryable only with all its findings, the
controllers post each table's events in order (at once when a round ends), the quantiles are
nearest-rank, and the load's processes spin and stop."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

from tablewatch.store.batch import StoreBatch
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.read_only import open_reader
from tablewatch.store.writer import StoreWriter
from tests.store.conftest import dsn_of
from tests.store.helpers import JUDGED_AT, round_cut_before_the_cards

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # latency_probe

from latency_probe import (
    Awaited,
    Controller,
    Posted,
    awaited_sql,
    cpu_load,
    quantiles,
)


def test_a_round_is_queryable_once_its_row_and_every_finding_show() -> None:
    awaited = Awaited()
    awaited.answer(("T-1", "R-1"), 10.0)  # will carry two findings
    awaited.answer(("T-2", "R-1"), 10.5)  # none
    awaited.update([["round", "T-1", "R-1", 2], ["findings", "T-1", "R-1", 1]], 10.2)
    assert awaited.queryable == {}  # T-2's row not shown yet, T-1's second finding missing
    assert awaited.row_seen == {("T-1", "R-1"): 10.2}
    assert awaited.pending() == [("T-1", "R-1"), ("T-2", "R-1")]
    awaited.update(
        [["round", "T-1", "R-1", 2], ["findings", "T-1", "R-1", 2], ["round", "T-2", "R-1", 0]],
        10.7,
    )
    assert awaited.queryable == {("T-1", "R-1"): 10.7, ("T-2", "R-1"): 10.7}
    assert awaited.pending() == []
    every, with_findings = awaited.waits()
    assert sorted(round(w, 3) for w in every) == [0.2, 0.7]
    assert [round(w, 3) for w in with_findings] == [0.7]
    later, later_with_findings = awaited.waits(since=10.1)  # T-1 answered before: not counted
    assert ([round(w, 3) for w in later], later_with_findings) == ([0.2], [])


def test_a_round_never_answered_is_not_counted_and_pending_is_capped() -> None:
    awaited = Awaited()
    awaited.update([["round", "T-9", "R-1", 0]], 1.0)
    assert awaited.queryable == {}
    for n in range(5):
        awaited.answer(("T-1", f"R-{n}"), float(n))
    assert awaited.pending(limit=2) == [("T-1", "R-0"), ("T-1", "R-1")]


def test_the_poll_asks_for_the_findings_of_the_rounds_named_only() -> None:
    rounds_only = awaited_sql([("T-1", "R-1"), ("O'Brien", "R-2")])
    assert rounds_only.count("('T-1', 'R-1')") == 1
    assert rounds_only.count("('O\\'Brien', 'R-2')") == 1  # quoted
    assert "FROM rounds_v" in rounds_only and "findings" not in rounds_only.split("FROM", 1)[1]
    both = awaited_sql([("T-1", "R-1"), ("T-2", "R-2")], [("T-2", "R-2")])
    assert both.count("('T-1', 'R-1')") == 1 and both.count("('T-2', 'R-2')") == 2
    assert "UNION ALL" in both and "FROM findings" in both


def test_findings_are_awaited_for_rounds_shown_with_findings_until_all_show() -> None:
    awaited = Awaited()
    for n in range(3):
        awaited.answer(("T-1", f"R-{n}"), 1.0)
    # every round not yet shown may carry findings: asked in the same poll as its row
    assert awaited.findings_awaited(awaited.pending()) == [("T-1", f"R-{n}") for n in range(3)]
    awaited.update([["round", "T-1", "R-0", 0], ["round", "T-1", "R-1", 3]], 1.1)
    assert awaited.findings_awaited(awaited.pending()) == [("T-1", "R-1"), ("T-1", "R-2")]
    awaited.update([["round", "T-1", "R-1", 3], ["findings", "T-1", "R-1", 3]], 1.2)
    assert awaited.findings_awaited(awaited.pending()) == [("T-1", "R-2")]  # still unseen
    assert awaited.queryable == {("T-1", "R-0"): 1.1, ("T-1", "R-1"): 1.2}


def test_quantiles_are_nearest_rank() -> None:
    seconds = [n / 1000 for n in range(100, 0, -1)]  # 1..100 ms, unsorted
    assert quantiles(seconds) == {"p50": 50, "p95": 95, "p99": 99, "max": 100}
    assert quantiles([0.25]) == {"p50": 250, "p95": 250, "p99": 250, "max": 250}
    assert quantiles([]) == {"p50": None, "p95": None, "p99": None, "max": None}


def _events_server(
    bodies: list[tuple[float, list[str]]],
) -> web.Application:
    """An endpoint that records each POST's arrival and event names, answering after 50 ms."""

    async def events(request: web.Request) -> web.Response:
        batch = json.loads(await request.read())
        bodies.append((time.monotonic(), [e["n"] for e in batch]))
        await asyncio.sleep(0.05)  # the next POST waits for this answer
        return web.json_response({"accepted": len(batch), "duplicates": 0, "rejected": 0})

    app = web.Application()
    app.router.add_post("/events", events)
    return app


async def _until(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


def test_a_controller_posts_its_events_in_order_at_once_when_a_round_ends() -> None:
    bodies: list[tuple[float, list[str]]] = []
    linger = 3.0

    async def run() -> tuple[Awaited, Posted, float, int, float]:
        server = TestServer(_events_server(bodies))
        await server.start_server()
        awaited, posted = Awaited(), Posted()
        try:
            async with aiohttp.ClientSession() as session:
                url = str(server.make_url("/events"))
                controller = Controller(session, url, linger, awaited, posted)
                done = asyncio.Event()
                task = asyncio.create_task(controller.run(done))
                started = time.monotonic()
                controller.add(b'{"n": "a"}', None)
                controller.add(b'{"n": "b"}', None)
                await asyncio.sleep(0.05)
                controller.add(b'{"n": "end-1"}', ("T-1", "R-1"))  # posted at once with a, b
                await _until(lambda: bool(awaited.answered))
                controller.add(b'{"n": "c"}', None)  # waits for the linger
                controller.add(b'{"n": "d"}', None)
                await asyncio.sleep(0.2)
                posts_before_done = len(bodies)
                done.set()  # what is left is posted at once, before run() returns
                await task
                finished = time.monotonic()
        finally:
            await server.close()
        return awaited, posted, started, posts_before_done, finished

    awaited, posted, started, posts_before_done, finished = asyncio.run(run())
    assert [names for _, names in bodies] == [["a", "b", "end-1"], ["c", "d"]]
    assert bodies[0][0] - started < linger  # the round's end did not wait for the linger
    assert posts_before_done == 1  # c and d waited for it (or the end)
    assert finished - started < linger  # the end did not wait for the linger either
    assert list(awaited.answered) == [("T-1", "R-1")]
    assert awaited.answered[("T-1", "R-1")] >= bodies[0][0]  # the answer, not the send
    assert (posted.posts, posted.events, posted.accepted, posted.not_accepted) == (2, 5, 5, 0)


def test_a_controller_posts_what_waited_once_the_linger_is_over() -> None:
    bodies: list[tuple[float, list[str]]] = []

    async def run() -> float:
        server = TestServer(_events_server(bodies))
        await server.start_server()
        try:
            async with aiohttp.ClientSession() as session:
                url = str(server.make_url("/events"))
                controller = Controller(session, url, 0.2, Awaited(), Posted())
                done = asyncio.Event()
                task = asyncio.create_task(controller.run(done))
                added = time.monotonic()
                controller.add(b'{"n": "x"}', None)
                controller.add(b'{"n": "y"}', None)
                await _until(lambda: bool(bodies))
                done.set()
                await task
        finally:
            await server.close()
        return added

    added = asyncio.run(run())
    assert [names for _, names in bodies] == [["x", "y"]]  # one POST, before the end
    assert bodies[0][0] - added >= 0.2


def test_the_load_spins_a_core_per_process_and_stops() -> None:
    with cpu_load(1) as load:
        deadline = time.monotonic() + 60
        while load.cpu_seconds() < 0.5 and time.monotonic() < deadline:
            time.sleep(0.1)
        busy = load.cpu_seconds()  # an idle Python would not spend 0.5 s of CPU in a minute
        processes = list(load.processes)
    assert busy >= 0.5
    assert len(processes) == 1
    assert all(p.poll() is not None for p in processes)


def test_the_poll_passes_the_read_only_checks_and_tells_row_and_findings(tmp_path: Path) -> None:
    """The statement the benchmark sends to /query, run by the worker's read-only reader on a
    store holding one judged round: its row's finding_count and its findings counted alike."""
    result = round_cut_before_the_cards()
    batch = StoreBatch()
    batch.add_outcome(result, JUDGED_AT)
    store_dsn = dsn_of(tmp_path / "store")
    store = connect(store_dsn)
    try:
        migrate(store)
        StoreWriter(store).insert_batch(batch)
    finally:
        store.close()
    key = (result.table_id, result.round_id)
    awaited = Awaited()
    awaited.answer(key, 0.0)
    awaited.answer(("T-unknown", "R-1"), 0.0)
    reader = open_reader(store_dsn)
    try:
        rows_only = reader.run(awaited_sql(awaited.pending())).rows
        assert [list(r) for r in rows_only] == [["round", *key, len(result.findings)]]
        asked = awaited.findings_awaited(awaited.pending())
        assert asked == [key, ("T-unknown", "R-1")]
        both = reader.run(awaited_sql(awaited.pending(), asked)).rows
        awaited.update(both, 1.0)
    finally:
        reader.close()
    assert sorted(list(r) for r in both) == [
        ["findings", *key, len(result.findings)],
        ["round", *key, len(result.findings)],
    ]
    assert awaited.queryable == {key: 1.0}  # the row and its findings in one poll
    assert awaited.pending() == [("T-unknown", "R-1")]
