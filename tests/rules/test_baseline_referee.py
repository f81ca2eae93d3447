"""The baseline referee: the findings of the first two games stay byte for byte what they were.

``baseline/`` holds, as the code of commit 4722a5e judged them (before Three
Card Poker and Ultimate Texas Hold 'Em joined and game knowledge moved into
``rules/games/``): a simulated floor of 12 Four Card Poker and Let It Ride
tables, 1,000 rounds with an error in 35% of them and rare hands in 2%
(``tablewatch simulate --tables 12 --rounds 1000 --seed 7 --error-rate 0.35
--jackpot-rate 0.02``, 349 findings of all 19 check codes those games have),
and the example shift. The files are evidence, never regenerated to make a
test pass: a difference is a changed finding, to be explained by an issue.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from tests.audit_json import audit_json

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "baseline"
EXAMPLES = HERE.parents[1] / "examples"


def test_the_simulated_floor_is_judged_as_before(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    with gzip.open(BASELINE / "floor_events.jsonl.gz", "rb") as src, events.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    expected = (BASELINE / "floor_findings.jsonl").read_text()
    assert len(expected.splitlines()) == 349
    assert audit_json(events, BASELINE / "floor_tables.yaml").stdout == expected


def test_the_example_shift_is_judged_as_before() -> None:
    expected = (BASELINE / "shift_findings.jsonl").read_text()
    assert len(expected.splitlines()) == 6
    assert audit_json(EXAMPLES / "shift.jsonl", EXAMPLES / "tables.yaml").stdout == expected
