"""The theoretical figures of wagers a table prices by the rows it states (and of a wager
settled with another wager's lettered table): keyed by the table's own pay table, computed
exactly once per distinct pay table, and joined with the table by ``table_paytables``."""

from __future__ import annotations

from fractions import Fraction

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.rules.config import parse_config
from tablewatch.store import theoretical
from tablewatch.store.table_paytables import paytable_rows

CONFIG = {
    "tables": {
        "TCP-1": {
            "game": "three_card_poker",
            "paytables": {
                "ante_bonus": {"rows": [5, 4, 1]},
                "pair_plus": {"rows": [40, 30, 6, 3, 1]},
            },
        },
        "TCP-2": {  # the same Ante bonus, another Pair Plus
            "game": "three_card_poker",
            "paytables": {
                "ante_bonus": {"rows": [5, 4, 1]},
                "pair_plus": {"rows": [40, 30, 6, 4, 1]},
            },
        },
        "UTH-1": {"game": "ultimate_texas_holdem", "paytables": {"blind": "B", "trips": "C"}},
    }
}


def test_each_table_is_joined_with_its_own_pay_table() -> None:
    rows = {(t, w): p for t, w, p, _ in paytable_rows(parse_config(CONFIG), 0)}
    assert rows[("TCP-1", "ante")] == "5-4-1"  # the Ante is priced with the Ante bonus's rows
    assert rows[("TCP-1", "pair_plus")] == "40-30-6-3-1"
    assert rows[("TCP-2", "pair_plus")] == "40-30-6-4-1"
    assert rows[("UTH-1", "ante")] == "B"  # the Ante, Blind and Play with the Blind's table
    assert rows[("UTH-1", "trips")] == "C"


def test_the_configured_rows_are_priced_exactly_once(store: Client) -> None:
    configs = parse_config(CONFIG)
    assert theoretical.fill_configured(store, configs, now_ms=1) == 3
    assert theoretical.fill_configured(store, configs, now_ms=2) == 0  # nothing lacking
    got = {
        (str(w), str(p)): (float(e), float(s), bool(x))
        for w, p, e, s, x in store.query(
            "SELECT wager, paytable, edge, std_dev, exact FROM theoretical_v"
            " WHERE game = 'three_card_poker'"
        ).result_rows
    }
    assert set(got) == {
        ("ante", "5-4-1"),
        ("pair_plus", "40-30-6-3-1"),
        ("pair_plus", "40-30-6-4-1"),
    }
    # published: Ante 3.37% (13,733,780 / 407,170,400, SD 1.6393 Antes), Pair Plus 7.28%, 2.32%
    assert got[("ante", "5-4-1")][0] == pytest.approx(float(Fraction(13_733_780, 407_170_400)))
    assert got[("ante", "5-4-1")][1] == pytest.approx(1.6393, abs=5e-5)
    assert got[("pair_plus", "40-30-6-3-1")][0] == pytest.approx(0.0728, abs=5e-5)
    assert got[("pair_plus", "40-30-6-4-1")][0] == pytest.approx(0.0232, abs=5e-5)
    assert all(exact for _, _, exact in got.values())


def test_the_lettered_figures_of_a_wager_settled_with_another_table_are_by_letter() -> None:
    keys = theoretical.expected_keys()
    assert {("ultimate_texas_holdem", "ante", "A"), ("ultimate_texas_holdem", "ante", "B")} <= keys
    assert ("ultimate_texas_holdem", "ante", "") not in keys
