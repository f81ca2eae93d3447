"""The audit of a simulated floor reports exactly the injected errors: all of them, nothing else.

The simulator settles with the rules engine's own settlement, so this cannot
catch a settlement error both share; the golden rounds and the published house
edges are the check on the math.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.commands.simulate import simulate
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.checks.catalog import PROTOCOL_CHECKS
from tablewatch.rules.config import parse_config
from tablewatch.sim.floor import Floor

Key = tuple[str, str | None, str, int | None, str | None]


def audit_floor(floor: Floor) -> tuple[Counter[Key], Counter[Key]]:
    auditor = Auditor(parse_config(floor.config))
    found = list(findings_of(auditor.feed_all(floor.events())))
    truth = floor.truth()
    # compare seat and bet where the truth names them
    named = {(t.table_id, t.round_id, t.check): (t.seat, t.bet) for t in truth}
    got: Counter[Key] = Counter()
    for f in found:
        seat, bet = named.get((f.table_id, f.round_id, f.check), (None, None))
        got[
            (f.table_id, f.round_id, f.check, f.seat if seat else None, f.bet if bet else None)
        ] += 1
    want: Counter[Key] = Counter((t.table_id, t.round_id, t.check, t.seat, t.bet) for t in truth)
    return got, want


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_audit_finds_exactly_the_injected_errors(seed: int) -> None:
    floor = Floor(tables=12, rounds=2000, seed=seed, error_rate=0.1, jackpot_rate=0.05)
    got, want = audit_floor(floor)
    assert got - want == Counter(), "findings on clean rounds (or on the wrong seat/bet)"
    assert want - got == Counter(), "injected errors not found"
    assert sum(want.values()) > 100


def test_every_check_code_is_injected_over_the_seeds() -> None:
    codes: set[str] = set()
    for seed in (11, 12):
        floor = Floor(tables=12, rounds=1500, seed=seed, error_rate=0.2, jackpot_rate=0.05)
        got, want = audit_floor(floor)
        assert got == want
        codes |= {key[2] for key in want}
    assert codes == set(PROTOCOL_CHECKS)


@pytest.mark.parametrize(("tables", "seed"), [(2, 2), (3, 6), (3, 10)])
def test_high_rates_duplicate_card_in_a_hand(tables: int, seed: int) -> None:
    """At high rates an injected DUPLICATE_CARD lands in one hand (often a rigged rare hand).

    Such a hand has no rank: the simulator (and the audit) once raised evaluating it.
    """
    floor = Floor(tables=tables, rounds=300, seed=seed, error_rate=0.9, jackpot_rate=0.2)
    got, want = audit_floor(floor)
    assert got == want
    assert any(key[2] == "DUPLICATE_CARD" for key in want)


def test_clean_floor_raises_nothing() -> None:
    floor = Floor(tables=6, rounds=600, seed=7, error_rate=0.0, jackpot_rate=0.1)
    got, want = audit_floor(floor)
    assert want == Counter()
    assert got == Counter()


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    outputs = []
    for name in ("a", "b"):
        out = tmp_path / name
        result = CliRunner().invoke(
            simulate,
            [
                "--tables",
                "3",
                "--rounds",
                "60",
                "--seed",
                "42",
                "--error-rate",
                "0.3",
                "--out",
                str(out),
            ],
        )
        assert result.exit_code == 0, result.output
        outputs.append(
            [(out / f).read_bytes() for f in ("events.jsonl", "tables.yaml", "truth.jsonl")]
        )
    assert outputs[0] == outputs[1]
    assert outputs[0][0].count(b"\n") > 1000
    other = tmp_path / "c"
    CliRunner().invoke(
        simulate, ["--tables", "3", "--rounds", "60", "--seed", "43", "--out", str(other)]
    )
    assert (other / "events.jsonl").read_bytes() != outputs[0][0]


def test_follow_emits_in_time_order() -> None:
    result = CliRunner().invoke(
        simulate, ["--tables", "2", "--rounds", "4", "--seed", "5", "--follow", "--speed", "1e9"]
    )
    assert result.exit_code == 0
    lines = result.stdout_bytes.splitlines()
    assert len(lines) > 100
    stamps = [line.split(b'"ts":"')[1][:24] for line in lines]
    assert stamps == sorted(stamps)
