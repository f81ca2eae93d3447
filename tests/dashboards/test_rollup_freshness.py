"""Each panel reading a rollup says how fresh it is, and its dashboard shows the time the
rollups hold what was stored up to (their watermark in rollup_watermarks)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.dashboards.catalog import DASHBOARDS
from tablewatch.dashboards.panels import PanelSql, rollups_read
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.rollups import refresh_rollups, watermarks

ROLLUP_READERS = {  # dashboard: its panels reading a rollup, as their SQL is written
    "tablewatch-floor": {"open_findings_by_severity", "findings_per_minute", "table_tiles"},
    "tablewatch-jackpots": {"progressive_meters", "paid_from_where", "jackpot_hits"},
    "tablewatch-procedures": {
        "stub_count_compliance",
        "bets_after_lockout",
        "deck_age",
        "shuffler_counts",
    },
    "tablewatch-hold": {"hold_by_table_and_wager", "hold_by_wager"},
    "tablewatch-patterns": {"pattern_findings_over_time", "pattern_findings_by_table"},
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Client]:
    client = connect(f"chdb:///{tmp_path / 'store'}")
    try:
        migrate(client)
        yield client
    finally:
        client.close()


def is_as_of(panel: PanelSql) -> bool:
    return panel.name.endswith("_rollups_as_of")


def test_every_panel_reading_a_rollup_states_its_refresh_and_the_as_of_panel() -> None:
    for spec in DASHBOARDS:
        readers = {p.name for p in spec.panels if rollups_read(p) and not is_as_of(p)}
        assert readers == ROLLUP_READERS.get(spec.uid, set()), spec.uid
        for panel in spec.panels:
            if rollups_read(panel) and not is_as_of(panel):
                assert "refreshed every 2 s by the worker" in panel.description, panel.name
        as_of = [p for p in spec.panels if is_as_of(p)]
        assert len(as_of) == (1 if readers else 0), spec.uid
        if readers:
            assert as_of[0] is spec.panels[-1]
            assert (as_of[0].kind, as_of[0].unit) == ("stat", "dateTimeFromNow")


def test_the_as_of_panel_shows_the_oldest_watermark_of_its_rollups(store: Client) -> None:
    refresh_rollups(store, rollups=["findings_by_minute"])  # the others stay as migrated
    marks = watermarks(store)
    floor = next(s for s in DASHBOARDS if s.uid == "tablewatch-floor")
    panel = floor.panel("floor_rollups_as_of")
    read = {name for p in floor.panels for name in rollups_read(p) if p is not panel}
    assert "findings_by_minute" in read and len(read) > 1
    assert store.query(panel.sql).result_rows == [(min(marks[name] for name in read),)]
    assert min(marks[name] for name in read) < marks["findings_by_minute"]
