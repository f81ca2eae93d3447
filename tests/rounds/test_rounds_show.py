"""``tablewatch rounds show`` of the golden rounds (tests/rounds/golden.py): every field of
the JSON and the lines of the text, against the values worked out by hand there, from the
files and from a store; reused round ids, missing rounds and tables, hostile values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tablewatch.commands.rounds import rounds
from tests.rounds.golden import FCP_EVENTS, LIR_EVENTS, TABLES_YAML

HOSTILE = ("x' OR '1'='1", "R-77'; DROP TABLE raw_events; --", "\\'", "R-77\\", "%", "*/ --")


def show(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(rounds, ["show", *args])
    return result.exit_code, result.stdout, result.stderr


def from_files(files: tuple[Path, Path], *args: str) -> tuple[int, str, str]:
    events, config = files
    return show(*args, "--events", str(events), "--config", str(config))


def report(files: tuple[Path, Path], table: str, round_id: str) -> dict[str, Any]:
    code, out, err = from_files(files, table, round_id, "--format", "json")
    assert (code, err) == (0, "")
    parsed: dict[str, Any] = json.loads(out)
    return parsed


LIR_TEXTS = [
    "round begins: dealer DL-4, deck D-9",
    "seat 3 wagers $10.00 on bet1",
    "seat 3 wagers $10.00 on bet2",
    "seat 3 wagers $10.00 on bet3",
    "seat 3 wagers $5.00 on five_card_bonus",
    "seat 3 wagers $5.00 on three_card_bonus",
    "seat 5 wagers $5.00 on bet1",
    "seat 5 wagers $5.00 on bet2",
    "seat 5 wagers $5.00 on bet3",
    "no more bets (lockout): the progressive system accepted 0, 0 progressive chips on the layout",
    "Kh (king of hearts) to seat 3, face down",
    "Qs (queen of spades) to seat 5, face down",
    "3h (three of hearts) to the community, face down",
    "9h (nine of hearts) to seat 3, face down",
    "Qd (queen of diamonds) to seat 5, face down",
    "2h (two of hearts) to the community, face down",
    "5h (five of hearts) to seat 3, face down",
    "4c (four of clubs) to seat 5, face down",
    "seat 3 lets bet1 ride",
    "seat 5 pulls bet1 back",
    "community card 1 turned over",
    "seat 3 lets bet2 ride",
    "seat 5 lets bet2 ride",
    "community card 2 turned over",
    "seat 3 bet1 settled: win, paid $80.00",
    "seat 3 bet2 settled: win, paid $80.00",
    "seat 3 bet3 settled: win, paid $80.00",
    "seat 3 five_card_bonus settled: win, paid $250.00",
    "seat 3 three_card_bonus settled: win, paid $20.00",
    "seat 5 bet2 settled: win, paid $5.00",
    "seat 5 bet3 settled: win, paid $4.00",
    "layout cleared: the round ends",
]


def _line(
    seat: int, bet: str, stake: int, result: str, paid: int, actual: int | None, **kw: Any
) -> dict[str, Any]:
    return {
        "seat": seat,
        "bet": bet,
        "stake": stake,
        "expected_result": result,
        "expected_paid": paid,
        "actual_result": kw.pop("actual_result", result),
        "actual_paid": actual,
        "correct": kw.pop("correct", True),
        "paytable": kw.pop("paytable", None),
        "paytable_line": kw.pop("line", None),
        "odds": kw.pop("odds", None),
        "section": kw.pop("section"),
    }


LIR_WAGERS = [
    _line(
        3,
        "bet1",
        1000,
        "win",
        8000,
        8000,
        paytable="A",
        line="flush",
        odds="8 to 1",
        section="§ 643a.12(a)",
    ),
    _line(
        3,
        "bet2",
        1000,
        "win",
        8000,
        8000,
        paytable="A",
        line="flush",
        odds="8 to 1",
        section="§ 643a.12(a)",
    ),
    _line(
        3,
        "bet3",
        1000,
        "win",
        8000,
        8000,
        paytable="A",
        line="flush",
        odds="8 to 1",
        section="§ 643a.12(a)",
    ),
    _line(
        3,
        "five_card_bonus",
        500,
        "win",
        25000,
        25000,
        paytable="B",
        line="flush",
        odds="$50",
        section="§ 643a.12(b)",
    ),
    _line(
        3,
        "three_card_bonus",
        500,
        "win",
        2000,
        2000,
        paytable="D",
        line="flush",
        odds="4 to 1",
        section="§ 643a.12(c)",
    ),
    _line(5, "bet1", 500, "returned", 0, None, actual_result=None, section="§ 643a.11(b)"),
    _line(
        5,
        "bet2",
        500,
        "win",
        500,
        500,
        paytable="A",
        line="pair of tens or better",
        odds="1 to 1",
        section="§ 643a.12(a)",
    ),
    _line(
        5,
        "bet3",
        500,
        "win",
        500,
        400,
        paytable="A",
        line="pair of tens or better",
        odds="1 to 1",
        section="§ 643a.12(a)",
        correct=False,
    ),
]


def test_a_let_it_ride_round_with_a_wrong_payout_every_field(
    golden_files: tuple[Path, Path],
) -> None:
    r = report(golden_files, "LIR-G", "R-77")
    header = {
        k: r[k]
        for k in (
            "format",
            "table_id",
            "round_id",
            "start_event_id",
            "game",
            "pit",
            "dealer_id",
            "deck_id",
            "dealing",
            "start_ts",
            "end_ts",
            "complete",
            "voided",
            "void_reason",
            "wagered",
            "paid",
            "findings_source",
            "same_round_id",
        )
    }
    assert header == {
        "format": 1,
        "table_id": "LIR-G",
        "round_id": "R-77",
        "start_event_id": "L-301",
        "game": "let_it_ride",
        "pit": "Pit 3",
        "dealer_id": "DL-4",
        "deck_id": "D-9",
        "dealing": "hand",
        "start_ts": "2026-11-29T21:40:01.000Z",
        "end_ts": "2026-11-29T21:40:32.000Z",
        "complete": True,
        "voided": False,
        "void_reason": None,
        "wagered": 5500,
        "paid": 51900,
        "findings_source": "events",
        "same_round_id": [],
    }
    assert [
        (t["seq"], t["ts"], t["type"], t["event_id"], t["round_event"]) for t in r["timeline"]
    ] == [(e["seq"], e["ts"], e["type"], e["event_id"], True) for e in LIR_EVENTS[1:]]
    assert [t["text"] for t in r["timeline"]] == LIR_TEXTS
    assert r["seats"] == [
        {
            "seat": 3,
            "cards": ["Kh", "9h", "5h"],
            "hand": "flush, king high",
            "hand_cards": ["Kh", "9h", "5h", "3h", "2h"],
            "three_card_hand": "flush, king high",
            "six_card_hand": None,
        },
        {
            "seat": 5,
            "cards": ["Qs", "Qd", "4c"],
            "hand": "pair of queens",
            "hand_cards": ["Qs", "Qd", "4c", "3h", "2h"],
            "three_card_hand": "pair of queens",
            "six_card_hand": None,
        },
    ]
    assert (r["dealer"], r["community"], r["bonus"]) == (None, ["3h", "2h"], [])
    assert r["decisions"] == [
        {
            "seq": 319,
            "ts": "2026-11-29T21:40:19.000Z",
            "event_id": "L-319",
            "seat": 3,
            "action": "ride",
            "bet": "bet1",
            "amount": None,
            "text": "seat 3 lets bet1 ride",
        },
        {
            "seq": 320,
            "ts": "2026-11-29T21:40:20.000Z",
            "event_id": "L-320",
            "seat": 5,
            "action": "pull",
            "bet": "bet1",
            "amount": None,
            "text": "seat 5 pulls bet1 back",
        },
        {
            "seq": 322,
            "ts": "2026-11-29T21:40:22.000Z",
            "event_id": "L-322",
            "seat": 3,
            "action": "ride",
            "bet": "bet2",
            "amount": None,
            "text": "seat 3 lets bet2 ride",
        },
        {
            "seq": 323,
            "ts": "2026-11-29T21:40:23.000Z",
            "event_id": "L-323",
            "seat": 5,
            "action": "ride",
            "bet": "bet2",
            "amount": None,
            "text": "seat 5 lets bet2 ride",
        },
    ]
    assert r["wagers"] == LIR_WAGERS
    assert (r["envy"], r["payout_limits"]) == ([], [])
    assert r["findings"] == [
        {
            "check": "WRONG_PAYOUT",
            "severity": "critical",
            "regulation": "§ 643a.12(a)",
            "message": "seat 5 bet3: pair of tens or better pays 1 to 1 on $5.00: $5.00; "
            "settled `win` with $4.00 paid",
            "seat": 5,
            "bet": "bet3",
            "expected": 500,
            "actual": 400,
            "event_ids": ["L-331"],
            "ts": "2026-11-29T21:40:01.000Z",  # a WRONG_PAYOUT's time is its round's
            "finding_id": None,
        }
    ]
    assert r["video"] == {
        "cameras": ["CAM-071", "CAM-072"],
        "from_ts": "2026-11-29T21:39:51.000Z",
        "until_ts": "2026-11-29T21:40:42.000Z",
    }
    assert set(r) == {
        *header,
        "timeline",
        "seats",
        "dealer",
        "community",
        "bonus",
        "decisions",
        "wagers",
        "envy",
        "payout_limits",
        "findings",
        "video",
    }


def test_a_four_card_poker_round_every_field(golden_files: tuple[Path, Path]) -> None:
    r = report(golden_files, "FCP-G", "R-8")
    assert {
        k: r[k]
        for k in (
            "table_id",
            "round_id",
            "start_event_id",
            "game",
            "pit",
            "dealer_id",
            "deck_id",
            "dealing",
            "start_ts",
            "end_ts",
            "complete",
            "voided",
            "wagered",
            "paid",
        )
    } == {
        "table_id": "FCP-G",
        "round_id": "R-8",
        "start_event_id": "F-41",
        "game": "four_card_poker",
        "pit": None,
        "dealer_id": "DL-7",
        "deck_id": "F-2",
        "dealing": "hand",
        "start_ts": "2026-11-29T22:05:00.500Z",
        "end_ts": "2026-11-29T22:05:17.500Z",
        "complete": True,
        "voided": False,
        "wagered": 3100,
        "paid": 10400,
    }
    assert [t["event_id"] for t in r["timeline"]] == [e["event_id"] for e in FCP_EVENTS[1:]]
    texts = [t["text"] for t in r["timeline"]]
    assert texts[:2] == ["round begins: dealer DL-7, deck F-2", "seat 1 wagers $10.00 on ante"]
    assert (
        "no more bets (lockout): the progressive system accepted 1, 1 progressive chips on "
        "the layout" in texts
    )
    assert "the dealer's cards turned over" in texts
    assert "seat 1 progressive settled: win, paid $9.00 (from the cage, validated by FL-1)" in texts
    assert r["seats"] == [
        {
            "seat": 1,
            "cards": ["9s", "9h", "9d", "Kc", "2s"],
            "hand": "three of a kind, nines",
            "hand_cards": ["9s", "9h", "9d", "Kc"],
            "three_card_hand": None,
            "six_card_hand": None,
        },
        {
            "seat": 2,
            "cards": ["Ah", "Ad", "7c", "5h", "3s"],
            "hand": "pair of aces",
            "hand_cards": ["Ah", "Ad", "7c", "5h"],
            "three_card_hand": None,
            "six_card_hand": None,
        },
    ]
    assert r["dealer"] == {
        "cards": ["Kd", "Ks", "8c", "8d", "4h", "6c"],
        "hand": "two pair, kings and eights",
    }
    assert (r["community"], r["bonus"]) == ([], [])
    assert [(d["seat"], d["action"], d["amount"], d["text"]) for d in r["decisions"]] == [
        (1, "play", 2000, "seat 1 plays, Play wager $20.00"),
        (2, "play", 1000, "seat 2 plays, Play wager $10.00"),
    ]
    assert r["wagers"] == [
        _line(
            1,
            "aces_up",
            500,
            "win",
            4000,
            4000,
            paytable="C",
            line="three of a kind",
            odds="8 to 1",
            section="§ 641a.12(c)",
        ),
        _line(1, "ante", 1000, "win", 1000, 1000, odds="1 to 1", section="§ 641a.11(c)(3)"),
        _line(
            1,
            "ante_bonus",
            1000,
            "win",
            2000,
            2000,
            line="three of a kind",
            odds="2 to 1",
            section="§ 641a.12(b)",
        ),
        _line(1, "play", 2000, "win", 2000, 2000, odds="1 to 1", section="§ 641a.11(c)(3)"),
        _line(
            1,
            "progressive",
            100,
            "win",
            900,
            900,
            paytable="A",
            line="three of a kind",
            odds="9 for 1",
            section="§ 641a.12(d)(1)",
        ),
        _line(
            2,
            "aces_up",
            500,
            "win",
            500,
            500,
            paytable="C",
            line="pair of aces",
            odds="1 to 1",
            section="§ 641a.12(c)",
        ),
        _line(2, "ante", 1000, "lose", 0, 0, section="§ 641a.11(c)(3)"),
        _line(2, "play", 1000, "lose", 0, 0, section="§ 641a.11(c)(3)"),
    ]
    assert (r["envy"], r["payout_limits"], r["findings"]) == ([], [], [])
    assert r["video"] == {
        "cameras": [],
        "from_ts": "2026-11-29T22:04:50.500Z",
        "until_ts": "2026-11-29T22:05:27.500Z",
    }


def test_the_text_says_the_same(golden_files: tuple[Path, Path]) -> None:
    code, out, err = from_files(golden_files, "LIR-G", "R-77")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:4] == [
        "Round R-77 at LIR-G (let_it_ride, pit Pit 3)",
        "  begun by event L-301; dealer DL-4; deck D-9 (hand dealing)",
        "  2026-11-29T21:40:01.000Z to 2026-11-29T21:40:32.000Z; complete; not voided",
        "  wagered $55.00, paid $519.00",
    ]
    words = [" ".join(line.split()) for line in lines]
    for event, text in zip(LIR_EVENTS[1:], LIR_TEXTS, strict=True):
        assert f"{event['seq']} {event['ts']} {event['type']} {event['event_id']} {text}" in words
    assert (
        "seat 3: Kh 9h 5h: flush, king high (Kh 9h 5h 3h 2h); its three cards: flush, king high"
        in words
    )
    assert (
        "seat 5: Qs Qd 4c: pair of queens (Qs Qd 4c 3h 2h); its three cards: pair of queens"
        in words
    )
    assert "community: 3h 2h" in words
    assert "3 bet1 $10.00 win $80.00 win $80.00 A flush 8 to 1 § 643a.12(a)" in words
    assert "3 five_card_bonus $5.00 win $250.00 win $250.00 B flush $50 § 643a.12(b)" in words
    assert "3 three_card_bonus $5.00 win $20.00 win $20.00 D flush 4 to 1 § 643a.12(c)" in words
    assert (
        "!! 5 bet3 $5.00 win $5.00 win $4.00 A pair of tens or better 1 to 1 § 643a.12(a)" in words
    )
    assert "5 bet1 $5.00 returned $0.00 - - - - - § 643a.11(b)" in words  # pulled
    assert sum(w.startswith("!!") for w in words) == 1
    assert "Findings (1, judged from the events)" in words
    assert (
        "WRONG_PAYOUT [critical] § 643a.12(a) seat 5 bet3; owed $5.00, paid $4.00: "
        "underpaid by $1.00" in words
    )
    assert "evidence: L-331" in words
    assert "cameras: CAM-071, CAM-072" in words
    assert "from 2026-11-29T21:39:51.000Z to 2026-11-29T21:40:42.000Z" in words

    code, out, _ = from_files(golden_files, "FCP-G", "R-8")
    words = [" ".join(line.split()) for line in out.splitlines()]
    assert "Round R-8 at FCP-G (four_card_poker, pit -)" in words
    assert "dealer: Kd Ks 8c 8d 4h 6c: two pair, kings and eights" in words
    assert (
        "1 ante_bonus $10.00 win $20.00 win $20.00 - three of a kind 2 to 1 § 641a.12(b)" in words
    )
    at = words.index("Findings (0, judged from the events)")
    assert words[at + 1] == "none"
    assert "cameras: none configured" in words


def test_from_the_store_the_same_report_with_the_stored_findings(
    golden_files: tuple[Path, Path], golden_dsn: str
) -> None:
    for table, round_id in (("LIR-G", "R-77"), ("FCP-G", "R-8")):
        from_events = report(golden_files, table, round_id)
        code, out, err = show(table, round_id, "--dsn", golden_dsn, "--format", "json")
        assert (code, err) == (0, "")
        stored = json.loads(out)
        assert stored["findings_source"] == "store"
        for finding in stored["findings"]:
            assert len(finding.pop("finding_id")) == 32  # BLAKE2b-128, hex
        for finding in from_events["findings"]:
            finding.pop("finding_id")
        from_events["findings_source"] = "store"
        assert stored == from_events


def _reused(
    directory: Path, first_seq: int = 333, at: str = "2026-11-29T21:41"
) -> tuple[Path, Path]:
    """The golden LIR round, then the table gives R-77 again to a round with one seat
    (its seq from ``first_seq``: 1 for a controller reset), at the minute ``at``."""
    steps: list[tuple[str, dict[str, Any]]] = [
        ("round_start", {"deck_id": "D-9", "dealer_id": "DL-5"}),
        ("wager", {"seat": 1, "bet": "bet1", "amount": 100}),
        ("wager", {"seat": 1, "bet": "bet2", "amount": 100}),
        ("wager", {"seat": 1, "bet": "bet3", "amount": 100}),
        ("lockout", {"progressive_accepted": 0, "progressive_chips": 0}),
        ("card", {"to": "seat:1", "card": "2c", "face_up": False}),
        ("card", {"to": "community", "card": "7d", "face_up": False}),
        ("card", {"to": "seat:1", "card": "8s", "face_up": False}),
        ("card", {"to": "community", "card": "Jh", "face_up": False}),
        ("card", {"to": "seat:1", "card": "Kd", "face_up": False}),
        ("decision", {"seat": 1, "action": "pull", "bet": "bet1"}),
        ("reveal", {"target": "community", "index": 1}),
        ("decision", {"seat": 1, "action": "pull", "bet": "bet2"}),
        ("reveal", {"target": "community", "index": 2}),
        ("settle", {"seat": 1, "bet": "bet3", "result": "lose", "paid": 0}),
        ("round_end", {}),
    ]
    again = [
        {
            "v": 1,
            "event_id": f"L2-{n}",
            "table_id": "LIR-G",
            "seq": first_seq + n,
            "ts": f"{at}:{n:02d}.000Z",
            "type": kind,
            "round_id": "R-77",
            **fields,
        }
        for n, (kind, fields) in enumerate(steps)
    ]
    events = directory / "reused.jsonl"
    lines = [json.dumps(e) for e in [*LIR_EVENTS, *again]]
    events.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = directory / "tables.yaml"
    config.write_text(TABLES_YAML, encoding="utf-8")
    return events, config


# the same hour: one span of the round_id's events, read with what is around them; hours
# later: read by their span, then what is around the latest (from_store.NARROW_MS)
@pytest.mark.parametrize("at", ["2026-11-29T21:41", "2026-11-29T23:41"], ids=["soon", "hours-on"])
@pytest.mark.parametrize("first_seq", [333, 1], ids=["seq-on", "controller-reset"])
def test_a_reused_round_id_shows_the_latest_and_names_the_other(
    tmp_path: Path, first_seq: int, at: str
) -> None:
    from tests.rounds.conftest import fill_store

    files = _reused(tmp_path, first_seq, at)
    dsn = f"chdb:///{tmp_path / 'store'}"
    fill_store(dsn, *files)
    for where in (["--events", str(files[0]), "--config", str(files[1])], ["--dsn", dsn]):
        code, out, _ = show("LIR-G", "R-77", *where, "--format", "json")
        latest = json.loads(out)
        assert code == 0
        assert (latest["start_event_id"], latest["dealer_id"], latest["same_round_id"]) == (
            "L2-0",
            "DL-5",
            ["L-301"],
        )
        assert latest["seats"][0]["hand"] == "king high"  # Kd 8s 2c with 7d Jh
        assert [(w["bet"], w["expected_result"], w["correct"]) for w in latest["wagers"]] == [
            ("bet1", "returned", True),
            ("bet2", "returned", True),
            ("bet3", "lose", True),
        ]
        reset = ["SEQUENCE_REGRESSION"] if first_seq == 1 else []  # seq went back to 1
        assert sorted(f["check"] for f in latest["findings"]) == ["ROUND_ID_REUSED", *reset]
        code, out, _ = show("LIR-G", "R-77", *where, "--start", "L-301", "--format", "json")
        first = json.loads(out)
        assert (code, first["start_event_id"], first["same_round_id"]) == (0, "L-301", ["L2-0"])
        assert [e["event_id"] for e in first["timeline"]] == [e["event_id"] for e in LIR_EVENTS[1:]]
        code, out, err = show("LIR-G", "R-77", *where, "--start", "L-302")
        assert (code, out) == (1, "")
        assert "no round 'R-77' begun by event 'L-302'" in err
        assert "L-301, L2-0" in err


def test_a_missing_round_or_table_is_exit_1_with_the_reason(
    golden_files: tuple[Path, Path], golden_dsn: str
) -> None:
    for where in (
        ["--events", str(golden_files[0]), "--config", str(golden_files[1])],
        ["--dsn", golden_dsn],
    ):
        code, out, err = show("LIR-G", "R-78", *where)
        assert (code, out) == (1, "")
        assert "LIR-G" in err and "'R-78'" in err
        code, out, err = show("LIR-99", "R-77", *where)
        assert (code, out) == (1, "")
        assert "table 'LIR-99'" in err


def test_unusable_input_is_exit_2(golden_files: tuple[Path, Path], tmp_path: Path) -> None:
    code, _, err = show("LIR-G", "R-77", "--events", str(golden_files[0]))
    assert (code, err) == (2, "tablewatch rounds show: --events needs --config TABLES.yaml\n")
    code, _, err = from_files((tmp_path / "none.jsonl", golden_files[1]), "LIR-G", "R-77")
    assert code == 2 and "none.jsonl" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(golden_files[0].read_text() + '{"v": 1, "type": "wager"}\n')
    code, out, err = from_files((bad, golden_files[1]), "LIR-G", "R-77")
    assert code == 2 and "Round R-77 at LIR-G" in out and "bad.jsonl:70: field `event_id`" in err


@pytest.mark.parametrize("value", HOSTILE)
def test_sql_metacharacters_in_every_value_change_nothing(golden_dsn: str, value: str) -> None:
    for args in (
        (value, "R-77"),
        ("LIR-G", value),
        ("LIR-G", "R-77", "--start", value),
    ):
        code, out, err = show(*args, "--dsn", golden_dsn)
        assert (code, out) == (1, ""), err
        assert "could not answer" not in err
    code, out, _ = show("LIR-G", "R-77", "--dsn", golden_dsn, "--format", "json")
    assert code == 0 and len(json.loads(out)["timeline"]) == 32  # the store is as it was
