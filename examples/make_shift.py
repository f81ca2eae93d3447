"""Write examples/shift.jsonl: two tables, a short shift, a few dealer mistakes.

    python examples/make_shift.py > examples/shift.jsonl

Mistakes in it (what `tablewatch audit` must report):
- LIR-07 R-3: bet1 of a pair of aces paid 2 to 1 instead of 1 to 1 (WRONG_PAYOUT);
- LIR-07 R-4: a Three Card Bonus placed after the lockout (BET_AFTER_LOCKOUT);
- LIR-07 R-5: fifth round without a stub count (STUB_COUNT_MISSING);
- FCP-02 R-12: four aces paid 100% of the meter from the table inventory
  (JACKPOT_PAID_FROM_INVENTORY), and the folded player's Envy Bonus forgotten
  (ENVY_BONUS_WRONG);
- FCP-02 R-13: a Play wager of 4x the Ante (PLAY_WAGER_OUT_OF_RANGE).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tablewatch.script import TableScript


def lir_round(
    t: TableScript, rid: str, *, bet1_paid: int = 2500, late_bonus: bool = False, stub: bool = True
) -> None:
    t.round_start(rid, "D-88", "DL-3")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    if not late_bonus:
        t.wager(2, "three_card_bonus", 500)
    t.lockout()
    if late_bonus:
        t.wager(2, "three_card_bonus", 500)
    deal = [
        ("seat:2", "Ah"),
        ("community", "7s"),
        ("seat:2", "Ad"),
        ("community", "9d"),
        ("seat:2", "3c"),
    ]
    for to, card in deal:
        t.card(to, card)
    if stub:
        t.stub_count(47)
    t.decision(2, "ride", "bet1")
    t.reveal("community", 1)
    t.decision(2, "ride", "bet2")
    t.reveal("community", 2)
    t.settle(2, "bet1", "win", bet1_paid)
    t.settle(2, "bet2", "win", 2500)
    t.settle(2, "bet3", "win", 2500)
    t.settle(2, "three_card_bonus", "win", 500)  # pair, 1 to 1 (table D)
    t.round_end()


def fcp_deal(t: TableScript, hands: dict[int, Sequence[str]], dealer: Sequence[str]) -> None:
    for i in range(5):
        for seat in sorted(hands):
            t.card(f"seat:{seat}", hands[seat][i])
        t.card("dealer", dealer[i])
    t.card("dealer", dealer[5], face_up=True)


def fcp_jackpot(t: TableScript, rid: str) -> None:
    t.meter(812_345)
    t.round_start(rid, "F-1", "DL-7")
    t.wager(1, "ante", 1000)
    t.wager(1, "progressive", 100)
    t.wager(4, "ante", 1000)
    t.wager(4, "progressive", 100)
    t.lockout(accepted=2, chips=2)
    fcp_deal(
        t,
        {1: ("Ah", "Ad", "Ac", "As", "2c"), 4: ("5c", "6d", "8h", "Jc", "2d")},
        ("3h", "3d", "7c", "7s", "Tc", "8c"),
    )
    t.decision(1, "play", amount=3000)
    t.decision(4, "fold")
    t.reveal("dealer")
    t.settle(4, "ante", "lose")
    t.settle(4, "progressive", "lose")
    t.settle(1, "ante", "win", 1000)
    t.settle(1, "play", "win", 3000)
    t.settle(1, "ante_bonus", "win", 25_000)
    t.settle(
        1,
        "progressive",
        "win",
        812_345,
        paid_from="table_inventory",
        meter=812_345,
        validated_by="FL-2",
    )
    t.round_end()


def fcp_big_play(t: TableScript, rid: str) -> None:
    t.round_start(rid, "F-1", "DL-7")
    t.wager(3, "ante", 1000)
    t.lockout()
    fcp_deal(t, {3: ("Kh", "Kd", "9c", "7d", "2s")}, ("3h", "4d", "8c", "Js", "Qh", "5c"))
    t.decision(3, "play", amount=4000)
    t.reveal("dealer")
    t.settle(3, "ante", "win", 1000)
    t.settle(3, "play", "win", 4000)
    t.round_end()


def main() -> None:
    lir = TableScript("LIR-07", start="2026-11-29T20:00:00.000Z", first_seq=100)
    fcp = TableScript("FCP-02", start="2026-11-29T20:00:00.250Z", first_seq=5000)
    lir.table_open("let_it_ride", "LIR-A-2026")
    lir.deck_in("D-88", "hand")
    lir.shuffle("D-88", None)
    fcp.table_open("four_card_poker", "FCP-C-2026")
    fcp.deck_in("F-1", "automated_shoe")
    fcp.shuffle("F-1", 52)
    lir_round(lir, "R-1", stub=False)
    lir_round(lir, "R-2", stub=False)
    fcp_jackpot(fcp, "R-12")
    lir_round(lir, "R-3", bet1_paid=5000, stub=False)
    lir_round(lir, "R-4", late_bonus=True, stub=False)
    fcp.shuffle("F-1", 52)
    fcp_big_play(fcp, "R-13")
    lir_round(lir, "R-5", stub=False)
    lir_round(lir, "R-6", stub=True)
    events = sorted([*lir.events, *fcp.events], key=lambda e: e.ts)
    sys.stdout.buffer.write(b"".join(TableScript.encode(e) + b"\n" for e in events))


if __name__ == "__main__":
    main()
