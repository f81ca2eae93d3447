"""Migration 0011 (month partitions, time in the sorting keys, rollups) on a store filled
before it: every view shows the same rows, the rollups agree with the views, and a run cut
short at any statement, then run again, ends in the same store."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.sim.floor import Floor
from tablewatch.store.client import connect
from tablewatch.store.migrate import SCHEMA_MIGRATIONS_DDL, available, migrate
from tablewatch.store.writer import StoreWriter
from tests.store.conftest import dsn_of
from tests.store.helpers import JUDGED_AT, Audited, audit_floor, insert_before_game_column

PARTITIONS = "0011"
VIEWS = ("raw_events_v", "rounds_v", "settlements_v", "findings_v")


@pytest.fixture(scope="module")
def audited() -> Audited:
    return audit_floor(Floor(tables=4, rounds=240, seed=7, error_rate=0.3, jackpot_rate=0.1))


def migrate_before(client: Client, version: str = PARTITIONS) -> None:
    """Apply every migration older than ``version``, recorded as ``migrate`` records them."""
    client.command(SCHEMA_MIGRATIONS_DDL)
    for migration in available():
        if migration.version >= version:
            continue
        for statement in migration.statements():
            client.command(statement)
        client.insert(
            "schema_migrations",
            [[migration.version, migration.name, int(time.time() * 1000)]],
            column_names=["version", "name", "applied_at"],
        )


def fill(client: Client, audited: Audited) -> None:
    """The floor written, then written again (a retried batch), then judged again later, as
    the writer of the schema before 0018 wrote it."""
    insert_before_game_column(client, audited.batch())
    insert_before_game_column(client, audited.batch())
    insert_before_game_column(client, audited.batch(judged_at_ms=JUDGED_AT + 60_000))


def view_rows(client: Client) -> dict[str, list[tuple[Any, ...]]]:
    """Each view's rows, in the columns it had before 0011 (0018 adds settlements' game)."""
    out = {}
    for view in VIEWS:
        columns = [
            c[0]
            for c in client.query(f"DESCRIBE TABLE {view}").result_rows
            if (view, c[0]) != ("settlements_v", "game")
        ]
        order = ", ".join(f"toString({c})" for c in columns)
        out[view] = [
            tuple(r)
            for r in client.query(
                f"SELECT {', '.join(columns)} FROM {view} ORDER BY {order}"
            ).result_rows
        ]
    return out


def layout(client: Client, table: str) -> tuple[str, str]:
    rows = client.query(
        "SELECT partition_key, sorting_key FROM system.tables"
        " WHERE database = currentDatabase() AND name = {t:String}",
        parameters={"t": table},
    ).result_rows
    return (str(rows[0][0]), str(rows[0][1]))


def check_migrated(client: Client, before: dict[str, list[tuple[Any, ...]]]) -> None:
    assert view_rows(client) == before
    assert layout(client, "rounds") == (
        "toYYYYMM(start_ts)",
        "table_id, start_ts, round_id, start_event_id",
    )
    assert layout(client, "settlements")[0] == "toYYYYMM(start_ts)"
    assert layout(client, "findings")[0].startswith("toYYYYMM(")
    leftovers = client.query(
        "SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE '%_0011'"
    ).result_rows
    assert leftovers == []
    # the rollups, against the views
    by_minute = client.query(
        "SELECT table_id, check, uniqExactMerge(ids) FROM findings_by_minute"
        " GROUP BY table_id, check ORDER BY table_id, check"
    ).result_rows
    from_view = client.query(
        "SELECT table_id, check, count() FROM findings_v GROUP BY table_id, check"
        " ORDER BY table_id, check"
    ).result_rows
    assert by_minute == from_view
    rounds = client.query(
        "SELECT table_id, uniqExactMerge(rounds) FROM rounds_by_hour GROUP BY table_id ORDER BY 1"
    ).result_rows
    assert (
        rounds
        == client.query(
            "SELECT table_id, count() FROM rounds_v GROUP BY table_id ORDER BY 1"
        ).result_rows
    )
    last = client.query(
        "SELECT table_id, max(last_event_ts) FROM table_activity GROUP BY table_id ORDER BY 1"
    ).result_rows
    assert (
        last
        == client.query(
            "SELECT table_id, max(ts) FROM raw_events_v GROUP BY table_id ORDER BY 1"
        ).result_rows
    )
    hold = client.query(
        "SELECT wager, sum(units), sum(house_win) FROM hold_by_round FINAL"
        " GROUP BY wager ORDER BY 1"
    ).result_rows
    assert len(hold) >= 4
    assert (
        hold
        == client.query(
            # the same sums from the view, by the rule of docs/dashboards.md
            "SELECT wager, sumIf(stake, unit AND counted), sumIf(win, counted) FROM ("
            " SELECT multiIf(bet IN ('bet1','bet2','bet3'), 'main', bet IN ('ante','play',"
            "   'ante_bonus'), 'ante', toString(bet)) AS wager,"
            "  bet IN ('bet3','ante','three_card_bonus','five_card_bonus','aces_up') AS unit,"
            "  stake, multiIf(actual_result = 'lose', stake, actual_result = 'win' AND"
            "   bet = 'five_card_bonus', stake - actual_paid, actual_result = 'win', -actual_paid,"
            "   0) AS win,"
            "  max(unit AND actual_result IN ('win','lose','push')) OVER (PARTITION BY"
            "   table_id, round_id, start_event_id, seat, wager) AS counted"
            " FROM settlements_v WHERE bet IN ('bet1','bet2','bet3','ante','play','ante_bonus',"
            "  'three_card_bonus','five_card_bonus','aces_up'))"
            " GROUP BY wager ORDER BY 1"
        ).result_rows
    )


def test_a_store_filled_before_the_partitions_migrates_without_loss(
    bare_store: Client, audited: Audited
) -> None:
    migrate_before(bare_store)
    fill(bare_store, audited)
    before = view_rows(bare_store)
    assert {len(rows) > 10 for rows in before.values()} == {True}
    assert layout(bare_store, "rounds")[0] == ""
    applied = migrate(bare_store)
    assert applied[0].startswith(PARTITIONS)
    check_migrated(bare_store, before)
    # the worker's writer goes on writing to the new tables: a round judged again replaces
    StoreWriter(bare_store).insert_batch(audited.batch(judged_at_ms=JUDGED_AT + 120_000))
    again = view_rows(bare_store)
    assert len(again["rounds_v"]) == len(before["rounds_v"])
    assert {r[-1] for r in again["rounds_v"]} != {r[-1] for r in before["rounds_v"]}


def _stores(root: Path, cuts: list[int]) -> Iterator[tuple[int, Client]]:
    for cut in cuts:
        client = connect(dsn_of(root / f"cut{cut}"))
        try:
            yield cut, client
        finally:
            client.close()


def test_the_partitions_migration_cut_short_then_run_again_loses_nothing(
    tmp_path: Path, audited: Audited
) -> None:
    """A crash after a copy, after a swap, after a drop, amid the rollups: run again from the
    file's start, the same store."""
    from tablewatch.store.migrate import should_run

    statements = next(m for m in available() if m.version == PARTITIONS).statements()
    assert "EXCHANGE TABLES rounds" in statements[2]
    cuts = [2, 3, 6, 9, 12, 14, len(statements) - 1]
    for cut, client in _stores(tmp_path, cuts):
        migrate_before(client)
        fill(client, audited)
        before = view_rows(client)
        for statement in statements[:cut]:
            if should_run(client, statement):
                client.command(statement)
        migrate(client)
        check_migrated(client, before)
