"""A round with 110,000 events near it (issue 26, item 5): its reconstruction through
``serve-api --dsn``'s readers is answered 413 naming the round, the count and the cap,
and harms no other request; a read the engine stops at its result limits is a 413 too, and
the reader it spoilt is not used again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tablewatch.api.app import create_app
from tablewatch.api.sources import ReaderPool, open_product_reader
from tablewatch.store.client import connect
from tablewatch.store.query_limits import QueryLimits
from tests.rounds.conftest import fill_store
from tests.rounds.golden import write_files

NEAR = 110_000  # table events stored within the round's span (LIR-G R-77: 33 events)
# deck_in events of table LIR-G, each of its own deck, at 21:40:10 (R-77 runs 21:40:01-32)
FLOOD = f"""
INSERT INTO raw_events (table_id, event_id, seq, ts, type, round_id, payload, kafka_partition,
    kafka_offset, ingested_at)
SELECT 'LIR-G', concat('X-', toString(number)), 310,
    toDateTime64('2026-11-29 21:40:10.000', 3, 'UTC'), 'deck_in', '',
    concat('{{"v": 1, "event_id": "X-', toString(number), '", "table_id": "LIR-G", ',
           '"seq": 310, "ts": "2026-11-29T21:40:10.000Z", "type": "deck_in", ',
           '"deck_id": "D-', toString(number), '", "dealing": "hand"}}'),
    -1, -1, now64(3)
FROM numbers({NEAR})
"""
# every other route, each asked twice (the pool has two readers)
OTHERS = [
    "/api/v1/tables",
    "/api/v1/findings",
    "/api/v1/rounds",
    "/api/v1/rounds/FCP-G/R-8",
    "/health",
    "/",
    "/findings",
    "/rounds/FCP-G/R-8",
]


@pytest.fixture(scope="module")
def dsn(tmp_path_factory: pytest.TempPathFactory) -> str:
    events, tables = write_files(tmp_path_factory.mktemp("golden"))
    dsn = f"chdb:///{tmp_path_factory.mktemp('flooded')}"
    fill_store(dsn, events, tables)
    client = connect(dsn)
    try:
        client.command(FLOOD)
    finally:
        client.close()
    return dsn


def client_of(pool: ReaderPool) -> TestClient:
    return TestClient(create_app(pool, described_as="test"), raise_server_exceptions=False)


def others_answer(client: TestClient) -> dict[str, list[int]]:
    return {route: [client.get(route).status_code for _ in range(2)] for route in OTHERS}


@pytest.fixture(scope="module")
def pool(dsn: str) -> Iterator[ReaderPool]:
    readers = ReaderPool(lambda: open_product_reader(dsn), size=2)
    try:
        yield readers
    finally:
        readers.close()


def test_the_flooded_round_is_413_naming_round_count_and_cap_and_others_still_answer(
    pool: ReaderPool,
) -> None:
    client = client_of(pool)
    answer = client.get("/api/v1/rounds/LIR-G/R-77")
    assert answer.status_code == 413
    assert answer.json() == {
        "detail": "round 'R-77' of table LIR-G: 110,033 events stored in it and around it "
        "(the table's events within a minute of it), over the 10,000 a reconstruction "
        "reads: too large to reconstruct"
    }
    page = client.get("/rounds/LIR-G/R-77")
    assert page.status_code == 413
    assert "110,033 events" in page.text
    assert others_answer(client) == {route: [200, 200] for route in OTHERS}


def test_the_cap_is_the_apps_and_a_round_under_it_is_reconstructed(pool: ReaderPool) -> None:
    client = client_of(pool)
    client.app.state.max_round_events = 200_000  # type: ignore[attr-defined]
    answer = client.get("/api/v1/rounds/LIR-G/R-77")
    assert answer.status_code == 413  # now past the engine's 100,000 result rows
    assert answer.json()["detail"].startswith(
        "round 'R-77' of table LIR-G: too large to reconstruct: the result is over 100,000 rows"
    )
    assert others_answer(client) == {route: [200, 200] for route in OTHERS}
    client.app.state.max_round_events = 20  # type: ignore[attr-defined]
    # FCP-G has 36 events in the golden file, all within a minute of R-8
    detail = client.get("/api/v1/rounds/FCP-G/R-8").json()["detail"]
    assert detail == (
        "round 'R-8' of table FCP-G: 36 events stored in it and around it (the table's "
        "events within a minute of it), over the 20 a reconstruction reads: too large to "
        "reconstruct"
    )


def test_a_read_stopped_at_the_engines_limits_spoils_no_later_statement(dsn: str) -> None:
    readers = ReaderPool(lambda: open_product_reader(dsn, QueryLimits(rows=50_000)), size=1)
    try:
        client = client_of(readers)
        client.app.state.max_round_events = 1_000_000  # type: ignore[attr-defined]
        assert client.get("/api/v1/rounds/LIR-G/R-77").status_code == 413
        assert others_answer(client) == {route: [200, 200] for route in OTHERS}
    finally:
        readers.close()


def test_rounds_show_refuses_the_flooded_round_in_one_line(dsn: str) -> None:
    from click.testing import CliRunner

    from tablewatch.cli import main as cli

    result = CliRunner().invoke(cli, ["rounds", "show", "LIR-G", "R-77", "--dsn", dsn])
    assert result.exit_code == 2
    assert result.stderr == (
        "tablewatch rounds show: round 'R-77' of table LIR-G: 110,033 events stored in it and "
        "around it (the table's events within a minute of it), over the 10,000 a "
        "reconstruction reads: too large to reconstruct\n"
    )
