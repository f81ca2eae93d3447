"""Hand-written golden rounds: the events, the configuration, and what a reconstruction
must say of them, every amount worked out by hand from the regulation's pay tables
(58 Pa. Code § 643a.12 and § 641a.12, in ../shared/regulations/000_*.txt).

LIR-G R-77 (Let It Ride, main A, Five Card Bonus B, Three Card Bonus D):
- seat 3: Kh 9h 5h with the community 3h 2h: a flush, king high. Bets 1-3 $10 each ride:
  flush pays 8 to 1 on pay table A: $80 each. Five Card Bonus $5: flush, $50 per $1 "for
  1" on table B: $250. Three Card Bonus $5: Kh 9h 5h is a three-card flush, 4 to 1 on
  table D: $20. All paid right.
- seat 5: Qs Qd 4c with 3h 2h: a pair of queens (tens or better). Bet 1 pulled before the
  first community card: returned, no settle needed; bets 2 and 3 of $5 ride: 1 to 1, $5
  each. Bet 3 is paid $4: WRONG_PAYOUT, expected $5.00, actual $4.00.
  Wagered: 3 x $10 + $5 + $5 + 3 x $5 = $55.00; paid: 3 x $80 + $250 + $20 + $5 + $4 =
  $519.00.

FCP-G R-8 (Four Card Poker, Aces Up C, progressive A, Envy A):
- seat 1: 9s 9h 9d Kc 2s, best four 9s 9h 9d Kc: three of a kind, nines. Ante $10, Play
  $20 (2x). The dealer's 6 cards Kd Ks 8c 8d 4h 6c give two pair, kings and eights:
  three of a kind beats two pair, Ante and Play 1 to 1: $10, $20. Ante bonus, three of a
  kind 2 to 1 (§ 641a.12(b)): $20. Aces Up $5 at table C, three of a kind 8 to 1: $40.
  Progressive $1 at table A, three of a kind 9 for 1: $9 (validated, from the cage).
- seat 2: Ah Ad 7c 5h 3s: pair of aces (Ah Ad 7c 5h), Ante $10, Play $10; loses to two
  pair: Ante and Play lost. No Ante bonus (a pair). Aces Up $5, pair of aces 1 to 1: $5.
  No qualifying Envy hand. Wagered (wagers before lockout; the Play wagers are
  decisions): $10 + $5 + $1 + $10 + $5 = $31.00; paid $10 + $20 + $20 + $40 + $9 + $5 =
  $104.00. No finding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TABLES_YAML = """\
tables:
  LIR-G:
    game: let_it_ride
    paytables: {main: A, five_card_bonus: B, three_card_bonus: D}
    counting_shuffler: true
    payout_limit: 5000000
    pit: "Pit 3"
    cameras: [CAM-071, CAM-072]
  FCP-G:
    game: four_card_poker
    paytables: {aces_up: C, progressive: A, envy: A}
    counting_shuffler: true
    progressive_reset: 500000
"""


def _lir() -> list[dict[str, Any]]:
    t, r = "LIR-G", "R-77"
    base = "2026-11-29T21:40:"
    rows: list[tuple[str, dict[str, Any]]] = [
        ("deck_in", {"deck_id": "D-9", "dealing": "hand"}),
        ("round_start", {"round_id": r, "deck_id": "D-9", "dealer_id": "DL-4"}),
        ("wager", {"round_id": r, "seat": 3, "bet": "bet1", "amount": 1000}),
        ("wager", {"round_id": r, "seat": 3, "bet": "bet2", "amount": 1000}),
        ("wager", {"round_id": r, "seat": 3, "bet": "bet3", "amount": 1000}),
        ("wager", {"round_id": r, "seat": 3, "bet": "five_card_bonus", "amount": 500}),
        ("wager", {"round_id": r, "seat": 3, "bet": "three_card_bonus", "amount": 500}),
        ("wager", {"round_id": r, "seat": 5, "bet": "bet1", "amount": 500}),
        ("wager", {"round_id": r, "seat": 5, "bet": "bet2", "amount": 500}),
        ("wager", {"round_id": r, "seat": 5, "bet": "bet3", "amount": 500}),
        ("lockout", {"round_id": r, "progressive_accepted": 0, "progressive_chips": 0}),
        ("card", {"round_id": r, "to": "seat:3", "card": "Kh", "face_up": False}),
        ("card", {"round_id": r, "to": "seat:5", "card": "Qs", "face_up": False}),
        ("card", {"round_id": r, "to": "community", "card": "3h", "face_up": False}),
        ("card", {"round_id": r, "to": "seat:3", "card": "9h", "face_up": False}),
        ("card", {"round_id": r, "to": "seat:5", "card": "Qd", "face_up": False}),
        ("card", {"round_id": r, "to": "community", "card": "2h", "face_up": False}),
        ("card", {"round_id": r, "to": "seat:3", "card": "5h", "face_up": False}),
        ("card", {"round_id": r, "to": "seat:5", "card": "4c", "face_up": False}),
        ("decision", {"round_id": r, "seat": 3, "action": "ride", "bet": "bet1"}),
        ("decision", {"round_id": r, "seat": 5, "action": "pull", "bet": "bet1"}),
        ("reveal", {"round_id": r, "target": "community", "index": 1}),
        ("decision", {"round_id": r, "seat": 3, "action": "ride", "bet": "bet2"}),
        ("decision", {"round_id": r, "seat": 5, "action": "ride", "bet": "bet2"}),
        ("reveal", {"round_id": r, "target": "community", "index": 2}),
        ("settle", {"round_id": r, "seat": 3, "bet": "bet1", "result": "win", "paid": 8000}),
        ("settle", {"round_id": r, "seat": 3, "bet": "bet2", "result": "win", "paid": 8000}),
        ("settle", {"round_id": r, "seat": 3, "bet": "bet3", "result": "win", "paid": 8000}),
        (
            "settle",
            {"round_id": r, "seat": 3, "bet": "five_card_bonus", "result": "win", "paid": 25000},
        ),
        (
            "settle",
            {"round_id": r, "seat": 3, "bet": "three_card_bonus", "result": "win", "paid": 2000},
        ),
        ("settle", {"round_id": r, "seat": 5, "bet": "bet2", "result": "win", "paid": 500}),
        ("settle", {"round_id": r, "seat": 5, "bet": "bet3", "result": "win", "paid": 400}),
        ("round_end", {"round_id": r}),
    ]
    # seq 300.., a second apart from 21:40:00.000 (e-300 is the deck_in)
    return [
        {
            "v": 1,
            "event_id": f"L-{300 + i}",
            "table_id": t,
            "seq": 300 + i,
            "ts": f"{base}{i:02d}.000Z",
            "type": kind,
            **fields,
        }
        for i, (kind, fields) in enumerate(rows)
    ]


def _fcp() -> list[dict[str, Any]]:
    t, r = "FCP-G", "R-8"
    rows: list[tuple[str, dict[str, Any]]] = [
        ("deck_in", {"deck_id": "F-2", "dealing": "hand"}),
        ("round_start", {"round_id": r, "deck_id": "F-2", "dealer_id": "DL-7"}),
        ("wager", {"round_id": r, "seat": 1, "bet": "ante", "amount": 1000}),
        ("wager", {"round_id": r, "seat": 1, "bet": "aces_up", "amount": 500}),
        ("wager", {"round_id": r, "seat": 1, "bet": "progressive", "amount": 100}),
        ("wager", {"round_id": r, "seat": 2, "bet": "ante", "amount": 1000}),
        ("wager", {"round_id": r, "seat": 2, "bet": "aces_up", "amount": 500}),
        ("lockout", {"round_id": r, "progressive_accepted": 1, "progressive_chips": 1}),
    ]
    seat1 = ["9s", "9h", "9d", "Kc", "2s"]
    seat2 = ["Ah", "Ad", "7c", "5h", "3s"]
    dealer = ["Kd", "Ks", "8c", "8d", "4h", "6c"]
    for n in range(5):
        rows.append(("card", {"round_id": r, "to": "seat:1", "card": seat1[n], "face_up": False}))
        rows.append(("card", {"round_id": r, "to": "seat:2", "card": seat2[n], "face_up": False}))
        rows.append(("card", {"round_id": r, "to": "dealer", "card": dealer[n], "face_up": False}))
    rows.append(("card", {"round_id": r, "to": "dealer", "card": dealer[5], "face_up": False}))
    rows += [
        ("decision", {"round_id": r, "seat": 1, "action": "play", "amount": 2000}),
        ("decision", {"round_id": r, "seat": 2, "action": "play", "amount": 1000}),
        ("reveal", {"round_id": r, "target": "dealer"}),
        ("settle", {"round_id": r, "seat": 1, "bet": "ante", "result": "win", "paid": 1000}),
        ("settle", {"round_id": r, "seat": 1, "bet": "play", "result": "win", "paid": 2000}),
        ("settle", {"round_id": r, "seat": 1, "bet": "ante_bonus", "result": "win", "paid": 2000}),
        ("settle", {"round_id": r, "seat": 1, "bet": "aces_up", "result": "win", "paid": 4000}),
        (
            "settle",
            {
                "round_id": r,
                "seat": 1,
                "bet": "progressive",
                "result": "win",
                "paid": 900,
                "paid_from": "cage",
                "validated_by": "FL-1",
            },
        ),
        ("settle", {"round_id": r, "seat": 2, "bet": "ante", "result": "lose", "paid": 0}),
        ("settle", {"round_id": r, "seat": 2, "bet": "play", "result": "lose", "paid": 0}),
        ("settle", {"round_id": r, "seat": 2, "bet": "aces_up", "result": "win", "paid": 500}),
        ("round_end", {"round_id": r}),
    ]
    # seq 40.., half a second apart from 22:05:00.000 (e-40 is the deck_in)
    return [
        {
            "v": 1,
            "event_id": f"F-{40 + i}",
            "table_id": t,
            "seq": 40 + i,
            "ts": f"2026-11-29T22:05:{i // 2:02d}.{500 * (i % 2):03d}Z",
            "type": kind,
            **fields,
        }
        for i, (kind, fields) in enumerate(rows)
    ]


LIR_EVENTS = _lir()
FCP_EVENTS = _fcp()


def write_files(directory: Path) -> tuple[Path, Path]:
    """The two tables' events interleaved in one JSON Lines file, and the configuration."""
    events = directory / "events.jsonl"
    merged = [e for pair in zip(LIR_EVENTS, FCP_EVENTS, strict=False) for e in pair]
    merged += LIR_EVENTS[len(FCP_EVENTS) :] + FCP_EVENTS[len(LIR_EVENTS) :]
    events.write_text("".join(json.dumps(e) + "\n" for e in merged), encoding="utf-8")
    config = directory / "tables.yaml"
    config.write_text(TABLES_YAML, encoding="utf-8")
    return events, config
