"""A toy fifth game, registered in this test alone, goes through every surface outside
``rules/games/`` and ``sim/games/`` with no other file touched: it is simulated, judged,
its settle lines rolled up in the store under its own name (the hold panels' table), its
round shown on its page with its hands named, and its findings filtered by its name; once
unregistered, its stored round and its name in a filter are refused, naming it.

The toy is played as Three Card Poker (a copy of that descriptor and simulator under a
name, title and table prefix of their own): what matters is a name no module spells."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from clickhouse_connect.driver.client import Client
from fastapi.testclient import TestClient
from pydantic import ValidationError

from tablewatch.api.app import create_app
from tablewatch.api.filters import Filters
from tablewatch.api.sources import ReaderPool, open_product_reader
from tablewatch.links import round_api_path, round_path
from tablewatch.rules.games import register, rules_of, unregister
from tablewatch.sim import games as sim_games
from tablewatch.sim.games import choose
from tablewatch.sim.games.three_card_poker import ThreeCardPoker
from tablewatch.store.client import connect
from tests.api.store import FilledStore, fill_store
from tests.game_copies import copy_of

TOY = "toy_poker"
TITLE = "Toy Poker"


@pytest.fixture(scope="module")
def toy() -> Iterator[str]:
    rules = copy_of(rules_of("three_card_poker"), name=TOY, title=TITLE)
    register(rules)
    sim_games.register(ThreeCardPoker(rules, prefix="TOY"))
    try:
        yield TOY
    finally:
        sim_games.unregister(TOY)
        unregister(TOY)


@pytest.fixture(scope="module")
def filled(toy: str, tmp_path_factory: pytest.TempPathFactory) -> FilledStore:
    """A store the worker's writes filled: two toy tables beside two of another game."""
    games = choose(f"{toy},let_it_ride")
    return fill_store(
        Path(tmp_path_factory.mktemp("toy")) / "store", tables=4, rounds=200, games=games
    )


@pytest.fixture(scope="module")
def store(filled: FilledStore) -> Iterator[Client]:
    client = connect(filled.dsn)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="module")
def client(filled: FilledStore) -> Iterator[TestClient]:
    readers = ReaderPool(lambda: open_product_reader(filled.dsn), size=2)
    try:
        yield TestClient(create_app(readers, described_as=filled.dsn))
    finally:
        readers.close()


def toy_tables(filled: FilledStore) -> set[str]:
    tables = filled.config["tables"]
    assert isinstance(tables, dict)
    return {t for t, entry in tables.items() if entry["game"] == TOY}


def test_the_toy_floor_is_judged_as_its_game(filled: FilledStore) -> None:
    rounds = filled.audited.rounds
    assert {r.game for r in rounds if r.table_id in toy_tables(filled)} == {TOY}
    assert len(toy_tables(filled)) == 2
    assert any(f.table_id in toy_tables(filled) for f in filled.audited.findings)


def test_its_hold_is_rolled_up_under_its_own_name(filled: FilledStore, store: Client) -> None:
    rows = store.query(
        "SELECT table_id, game, wager, sum(hands), sum(units) FROM hold_by_round FINAL"
        " GROUP BY table_id, game, wager ORDER BY table_id, wager"
    ).result_rows
    toy_rows = [r for r in rows if r[0] in toy_tables(filled)]
    assert {r[1] for r in toy_rows} == {TOY}
    assert {r[2] for r in toy_rows} >= {"ante", "pair_plus"}
    assert all(r[3] > 0 and r[4] > 0 for r in toy_rows)
    # the Ante's units are the stakes of the Antes settled and not returned
    ante_units = store.query(
        "SELECT sum(stake) FROM settlements_v WHERE bet = 'ante'"
        " AND actual_result IN ('win', 'lose', 'push') AND table_id IN {t:Array(String)}",
        parameters={"t": sorted(toy_tables(filled))},
    ).result_rows[0][0]
    assert sum(r[4] for r in toy_rows if r[2] == "ante") == ante_units
    assert {r[1] for r in rows if r[0] not in toy_tables(filled)} == {"let_it_ride"}


def test_its_round_page_names_its_hands(filled: FilledStore, client: TestClient) -> None:
    judged = next(
        r
        for r in filled.audited.rounds
        if r.table_id in toy_tables(filled) and r.complete and not r.voided
    )
    page = client.get(round_path(judged.table_id, judged.round_id))
    assert page.status_code == 200, page.text
    assert TITLE in page.text
    report = client.get(round_api_path(judged.table_id, judged.round_id)).json()
    assert report["game"] == TOY
    for seat in report["seats"]:
        named = rules_of(TOY).words
        assert named is not None
        dealer = report["dealer"]["cards"]
        assert seat["hand"] == named.seat(seat["cards"], {"dealer": dealer}).hand
        assert seat["hand"] is not None and seat["hand"] in page.text
    assert report["dealer"]["hand"] is not None


def test_its_findings_are_filtered_by_its_name(filled: FilledStore, client: TestClient) -> None:
    answer = client.get("/api/v1/findings", params={"game": TOY, "limit": 1000})
    assert answer.status_code == 200, answer.text
    found = answer.json()["items"]
    assert found and {f["table_id"] for f in found} <= toy_tables(filled)
    want = [f for f in filled.audited.findings if f.table_id in toy_tables(filled)]
    assert len(found) == len(want)
    page = client.get("/findings", params={"game": TOY})
    assert page.status_code == 200
    assert f'<option value="{TOY}" selected>{TITLE}</option>' in page.text


def test_once_unregistered_its_name_is_refused_naming_it(
    filled: FilledStore, toy: str, client: TestClient
) -> None:
    judged = next(r for r in filled.audited.rounds if r.table_id in toy_tables(filled))
    rules = rules_of(TOY)
    unregister(TOY)
    try:
        with pytest.raises(ValidationError, match=f"not a game: '{TOY}'"):
            Filters(game=TOY)
        answer = client.get(round_api_path(judged.table_id, judged.round_id))
        assert answer.status_code >= 400
        assert TOY in answer.text
    finally:
        register(rules)
