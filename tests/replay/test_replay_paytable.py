"""Replay under another pay table: exactly the diff worked out by hand from § 643a.12(a).

§ 643a.12(a), Let It Ride Wagers (bets 1, 2 and 3): a royal flush pays 1,000 to 1
under Paytable A and 500 to 1 under Paytable B; a flush 8 to 1 under both. Every
round below is seat 2 at LIR-P with $10.00 (1,000 cents) on each of the three bets,
all of which ride:

| round | hand (seat + community) | dealer paid each bet | A expects | B expects |
|---|---|---|---|---|
| R-1 | As Ks Qs + Js Ts, royal flush | $10,000.00 | $10,000.00 | $5,000.00 |
| R-2 | royal flush | $5,000.00 | $10,000.00 | $5,000.00 |
| R-3 | royal flush | $2,000.00 | $10,000.00 | $5,000.00 |
| R-4 | 2h 7h 9h + Jh 4h, flush | $80.00 | $80.00 | $80.00 |
| R-5 | flush | bet1 $10.00, the others $80.00 | $80.00 | $80.00 |

The live store judged them under A: R-2 and R-3 wrong on each bet, R-5 wrong on
bet1. Replayed under B: R-1 and R-3 wrong on each bet, R-5 on bet1. So the diff is
R-1 new x3 (expected $5,000, actual $10,000), R-2 gone x3 (live expected $10,000,
actual $5,000), R-3 changed x3 (expected $10,000 -> $5,000, actual $2,000), and R-5
not in it (the same finding on both sides).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import parse_config
from tablewatch.rules.events import AnyEvent
from tablewatch.script import TableScript
from tablewatch.store.client import open_store
from tablewatch.store.migrate import migrate
from tablewatch.store.writer import StoreWriter
from tests.replay.helpers import query, replay_json, write_config, write_events
from tests.scenarios import lir_deal
from tests.store.helpers import audit_events

BETS = ("bet1", "bet2", "bet3")
ROYAL = (("As", "Ks", "Qs"), ("Js", "Ts"))
FLUSH = (("2h", "7h", "9h"), ("Jh", "4h"))


def config(main: str) -> dict[str, Any]:
    return {
        "tables": {
            "LIR-P": {
                "game": "let_it_ride",
                "paytables": {"main": main},
                "counting_shuffler": True,
            }
        }
    }


def _round(
    t: TableScript, round_id: str, cards: tuple[Sequence[str], Sequence[str]], paid: Sequence[int]
) -> None:
    hand, community = cards
    t.round_start(round_id, "D-1")
    for bet in BETS:
        t.wager(2, bet, 1_000)
    t.lockout()
    lir_deal(t, {2: hand}, community)
    t.decision(2, "ride", "bet1")
    t.reveal("community", 1)
    t.decision(2, "ride", "bet2")
    t.reveal("community", 2)
    for bet, amount in zip(BETS, paid, strict=True):
        t.settle(2, bet, "win", amount)
    t.round_end()


def events() -> list[AnyEvent]:
    t = TableScript("LIR-P")
    t.table_open("let_it_ride")
    t.deck_in("D-1", "manual_shoe")
    _round(t, "R-1", ROYAL, (1_000_000,) * 3)
    _round(t, "R-2", ROYAL, (500_000,) * 3)
    _round(t, "R-3", ROYAL, (200_000,) * 3)
    _round(t, "R-4", FLUSH, (8_000,) * 3)
    _round(t, "R-5", FLUSH, (1_000, 8_000, 8_000))
    return list(t.events)


EXPECTED = sorted(
    [("new", "R-1", 2, bet, None, None, 500_000, 1_000_000) for bet in BETS]
    + [("gone", "R-2", 2, bet, 1_000_000, 500_000, None, None) for bet in BETS]
    + [("changed", "R-3", 2, bet, 1_000_000, 200_000, 500_000, 200_000) for bet in BETS]
)


def live_store(dsn: str, scripted: list[AnyEvent]) -> None:
    """The store as the worker leaves it after judging the rounds under pay table A: the
    events, rounds, lines and findings, written by the worker's row builders and writer."""
    audited = audit_events(scripted, Auditor(parse_config(config("A"))))
    with open_store(dsn) as client:
        migrate(client)
        StoreWriter(client).insert_batch(audited.batch())


def entries(document: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (e["kind"], e["round_id"], e["seat"], e["bet"], e["live_expected"], e["live_actual"],
         e["replay_expected"], e["replay_actual"])
        for e in document["diff"]["entries"]
    )  # fmt: skip


def test_replay_under_pay_table_b_gives_the_hand_worked_diff(tmp_path: Path) -> None:
    dsn = f"chdb:///{tmp_path / 'store'}"
    scripted = events()
    live_store(dsn, scripted)
    files = write_events(tmp_path / "events.jsonl", scripted)
    table_b = write_config(tmp_path / "tables-b.yaml", config("B"))
    # the live findings under A, as judged (the diff's "gone" and "changed" rest on them)
    live = query(
        dsn, "SELECT round_id, bet, expected, actual FROM findings_v ORDER BY round_id, bet"
    )
    assert [tuple(r) for r in live] == (
        [("R-2", bet, 1_000_000, 500_000) for bet in BETS]
        + [("R-3", bet, 1_000_000, 200_000) for bet in BETS]
        + [("R-5", "bet1", 8_000, 1_000)]
    )
    for source in (["--source", "files", str(files)], ["--source", "store"]):
        code, document, stderr = replay_json(*source, "--config", str(table_b), "--dsn", dsn)
        assert code == 1, stderr
        diff = document["diff"]
        assert (diff["new"], diff["gone"], diff["changed"]) == (3, 3, 3)
        assert entries(document) == EXPECTED
        assert {e["check"] for e in diff["entries"]} == {"WRONG_PAYOUT"}
        run = document["run"]
        assert (run["status"], run["events"], run["rounds"], run["findings"]) == (
            "complete", len(scripted), 5, 7,
        )  # fmt: skip
    # the live findings are untouched
    assert query(dsn, "SELECT count() FROM findings_v")[0][0] == 7
    # under the live pay table itself, a replay finds what the live run found
    table_a = write_config(tmp_path / "tables-a.yaml", config("A"))
    code, document, stderr = replay_json(
        "--source", "store", "--config", str(table_a), "--dsn", dsn
    )
    assert code == 0, stderr
    assert document["diff"]["entries"] == []
