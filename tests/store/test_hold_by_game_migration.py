"""Migration 0018: the hold rollups are labelled by the game of the table (the table
directory, i.e. the configuration the worker loaded; else the round's game), not guessed
from bet names, and a store of schema 0017 has its rollups relabelled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.rules.config import parse_config
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import simulated
from tablewatch.store.client import connect
from tablewatch.store.migrate import available, migrate, should_run
from tablewatch.store.rollups import refresh_rollups
from tablewatch.store.rows import ROUND_COLUMNS, SETTLEMENT_COLUMNS
from tablewatch.store.table_directory import directory_rows, write_directory
from tablewatch.store.writer import StoreWriter
from tests.store.conftest import dsn_of
from tests.store.helpers import JUDGED_AT, Audited, audit_floor, insert_before_game_column
from tests.store.test_partitions_migration import migrate_before

START_MS = 1_795_000_000_000
# A Three Card Poker round as the worker of schema 0017 stored it: Ante, Play and Ante
# bonus lost and won, which migration 0011's rollup counted as "four_card_poker".
TCP_LINES = (
    (1, "ante", 1000, "lose", 0),
    (1, "play", 1000, "lose", 0),
    (2, "ante", 500, "win", 500),
    (2, "play", 500, "win", 500),
    (2, "ante_bonus", 0, "win", 500),
)


@pytest.fixture(scope="module")
def floor() -> Floor:
    games = (simulated("four_card_poker"), simulated("let_it_ride"))  # the schema's own
    return Floor(tables=4, rounds=40, seed=11, error_rate=0.2, games=games)


@pytest.fixture(scope="module")
def audited(floor: Floor) -> Audited:
    return audit_floor(floor)


def write_tcp_round(client: Client, table_id: str) -> None:
    settlements = [
        [table_id, "r1", "e1", seat, bet, stake, result, paid, result, paid, START_MS, JUDGED_AT]
        for seat, bet, stake, result, paid in TCP_LINES
    ]
    client.insert("settlements", settlements, column_names=list(SETTLEMENT_COLUMNS[:-1]))
    round_row = [table_id, "r1", "e1", "three_card_poker", START_MS, START_MS + 30_000, "d1",
                 "deck1", 2, 3000, 2000, False, True, 0, JUDGED_AT]  # fmt: skip
    client.insert("rounds", [round_row], column_names=list(ROUND_COLUMNS))


def hold(client: Client) -> dict[tuple[str, str, str], tuple[Any, ...]]:
    """(table, wager, round) -> (game, hands, units, unit_squares, house_win)."""
    rows = client.query(
        "SELECT table_id, wager, round_id, game, hands, units, unit_squares, house_win"
        " FROM hold_by_round FINAL"
    ).result_rows
    return {(r[0], r[1], r[2]): tuple(r[3:]) for r in rows}


def test_a_store_at_0017_shows_each_tables_rollups_under_its_configured_game(
    bare_store: Client, floor: Floor, audited: Audited
) -> None:
    migrate_before(bare_store, "0018")
    configs = parse_config(floor.config)
    games = {table_id: config.game for table_id, config in configs.items()}
    assert set(games.values()) == {"four_card_poker", "let_it_ride"}
    insert_before_game_column(bare_store, audited.batch())
    write_tcp_round(bare_store, "tcp-1")  # configured: in the table directory
    write_tcp_round(bare_store, "tcp-2")  # no directory row: its round's game
    directory = directory_rows(configs, {}, JUDGED_AT)
    directory.append(("tcp-1", "three_card_poker", "", [], "", "", JUDGED_AT))
    write_directory(bare_store, directory)

    before = hold(bare_store)
    # the old rollup's guess: every wager not Let It Ride's is Four Card Poker's
    assert before[("tcp-1", "ante", "r1")][0] == "four_card_poker"
    assert before[("tcp-2", "ante", "r1")][0] == "four_card_poker"

    assert [label[:4] for label in migrate(bare_store)] == ["0018", "0019", "0020", "0021"]

    after = hold(bare_store)
    assert after.keys() == before.keys()
    for key, row in after.items():
        assert row[1:] == before[key][1:], key  # the sums kept
    assert {after[k][0] for k in after if k[0] == "tcp-1"} == {"three_card_poker"}
    assert {after[k][0] for k in after if k[0] == "tcp-2"} == {"three_card_poker"}
    # two hands, 15.00 of Antes; the house won 20.00 at seat 1 and paid 15.00 at seat 2
    assert after[("tcp-1", "ante", "r1")][1:] == (2, 1500, 1000.0**2 + 500.0**2, 500)
    floor_tables = {k[0] for k in after} - {"tcp-1", "tcp-2"}
    assert floor_tables == set(games)
    for key, row in after.items():
        if key[0] in games:
            assert row[0] == games[key[0]], key

    # The worker of the new schema re-judges the floor: its lines are counted by the
    # round's game and the game's own hold wagers, to the same sums.
    StoreWriter(bare_store).insert_batch(audited.batch(judged_at_ms=JUDGED_AT + 60_000))
    refresh_rollups(bare_store)
    again = hold(bare_store)
    assert again == after
    stored_games = bare_store.query(
        "SELECT DISTINCT table_id, game FROM settlements FINAL WHERE judged_at > {t:DateTime64(3)}",
        parameters={"t": JUDGED_AT / 1000},
    ).result_rows
    assert {str(table_id): str(game) for table_id, game in stored_games} == games


def test_the_migration_cut_short_then_run_again_ends_in_the_same_store(tmp_path: Path) -> None:
    """A crash after any statement of 0018 (after the copy, the swap, the drop): run again
    from the file's start, the rollups are relabelled once, none lost or doubled."""
    statements = next(m for m in available() if m.version == "0018").statements()
    results = []
    for cut in range(len(statements) + 1):
        client = connect(dsn_of(tmp_path / f"cut{cut}"))
        try:
            migrate_before(client, "0018")
            write_tcp_round(client, "tcp-1")
            write_tcp_round(client, "tcp-2")
            write_directory(client, [("tcp-1", "three_card_poker", "", [], "", "", JUDGED_AT)])
            for statement in statements[:cut]:
                if should_run(client, statement):
                    client.command(statement)
            migrate(client)
            results.append(hold(client))
            count = client.query("SELECT count() FROM hold_by_round").result_rows[0][0]
            assert count == 2, cut  # one row per table: none doubled
            tables = client.query(
                "SELECT count() FROM system.tables WHERE database = currentDatabase()"
                " AND name = 'hold_by_round_0018'"
            ).result_rows[0][0]
            assert tables == 0, cut
        finally:
            client.close()
    assert results[0] == {
        ("tcp-1", "ante", "r1"): ("three_card_poker", 2, 1500, 1000.0**2 + 500.0**2, 500),
        ("tcp-2", "ante", "r1"): ("three_card_poker", 2, 1500, 1000.0**2 + 500.0**2, 500),
    }
    assert all(result == results[0] for result in results)
