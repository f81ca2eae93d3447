"""Hold on a simulated floor without errors: every table's and every wager's actual hold
lies inside its band, the theoretical edge ±3 standard errors (the hold panels' SQL on
an embedded store, the floor written with the store's own rows)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.dashboards import hold
from tablewatch.dashboards.check import check_panel
from tablewatch.dashboards.macros import Selection, TimeRange
from tablewatch.dashboards.panels import PanelSql
from tablewatch.rules.config import parse_config
from tablewatch.sim.floor import Floor
from tablewatch.store import theoretical
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.rollups import refresh_rollups
from tablewatch.store.rows import SETTLEMENT_COLUMNS
from tablewatch.store.table_directory import directory_rows, write_directory
from tablewatch.store.table_paytables import paytable_rows, write_paytables
from tablewatch.store.writer import StoreWriter
from tests.sim.floors import FIRST_TWO
from tests.store.helpers import JUDGED_AT, audit_floor


@pytest.fixture(scope="module")
def clean_floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    # the first two games: every priced wager of theirs has a theoretical figure
    floor = Floor(tables=8, rounds=3000, seed=41, error_rate=0.0, jackpot_rate=0.0, games=FIRST_TWO)
    audited = audit_floor(floor)
    assert audited.findings == [] or {f.check for f in audited.findings} <= {"STUB_COUNT_MISSING"}
    client = connect(f"chdb:///{Path(tmp_path_factory.mktemp('hold')) / 'store'}")
    try:
        migrate(client)
        assert theoretical.fill(client) >= 21  # the first two games' 21 among them
        StoreWriter(client).insert_batch(audited.batch())
        configs = parse_config(floor.config)
        write_directory(client, directory_rows(configs, {}, JUDGED_AT))
        write_paytables(client, paytable_rows(configs, JUDGED_AT))
        refresh_rollups(client)  # as the worker does after its inserts
        yield client
    finally:
        client.close()


def run_panel(client: Client, panel: PanelSql) -> list[dict[str, Any]]:
    def run(sql: str) -> tuple[list[str], list[list[object]]]:
        answer = client.query(sql)
        return list(answer.column_names), [list(r) for r in answer.result_rows]

    everything = TimeRange(0, 4_102_444_800_000)  # 1970 .. 2100
    result = check_panel(hold.DASHBOARD, panel, run, everything, Selection())
    assert result.ok, result.problem
    answer = client.query(result.sql)
    return [dict(zip(answer.column_names, row, strict=True)) for row in answer.result_rows]


def test_every_tables_hold_lies_inside_its_band(clean_floor: Client) -> None:
    rows = run_panel(clean_floor, hold.HOLD_BY_TABLE_AND_WAGER)
    assert {r["wager"] for r in rows} == {
        "main", "three_card_bonus", "five_card_bonus", "ante", "aces_up",
    }  # fmt: skip
    for row in rows:
        assert row["theoretical_edge"] is not None and row["hands"] > 100, row
        assert row["band_low"] < row["theoretical_edge"] < row["band_high"], row
        assert row["inside_band"], row


def test_every_wagers_hold_lies_inside_its_band(clean_floor: Client) -> None:
    rows = run_panel(clean_floor, hold.HOLD_BY_WAGER)
    assert len(rows) >= 5
    for row in rows:
        assert row["inside_band"], row
        assert row["band_low"] < row["theoretical_edge"] < row["band_high"], row


def test_a_hold_far_from_the_edge_falls_outside_the_band(clean_floor: Client) -> None:
    """A table whose main bets were all paid double: outside (the band can say no)."""
    clean_floor.command(
        f"INSERT INTO settlements ({', '.join(SETTLEMENT_COLUMNS)})"
        " SELECT table_id, round_id, start_event_id, seat, bet, stake,"
        " expected_result, expected_paid, actual_result, actual_paid * 2,"
        " start_ts, judged_at + INTERVAL 1 SECOND, game FROM settlements FINAL"
        " WHERE bet IN ('bet1', 'bet2', 'bet3') AND actual_result = 'win'"
        " AND table_id = (SELECT min(table_id) FROM rounds WHERE game = 'let_it_ride')"
    )
    refresh_rollups(clean_floor)
    rows = run_panel(clean_floor, hold.HOLD_BY_TABLE_AND_WAGER)
    doubled = [r for r in rows if r["wager"] == "main" and not r["inside_band"]]
    assert len(doubled) == 1
