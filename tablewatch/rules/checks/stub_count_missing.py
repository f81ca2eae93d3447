"""STUB_COUNT_MISSING: no stub count in 5 rounds in a row at a table whose shuffler does not count.

Count the stub at least once every 5 rounds (the game's ``stub_cadence`` by
dealing, as its descriptor in :mod:`tablewatch.rules.games` cites them).
Rounds are counted by ``round_start``; reported on the fifth round, then the
count starts again.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.table_level import table_finding
from tablewatch.rules.findings import Finding
from tablewatch.rules.game_rules import Sections, dealing_section

CODE: Final = "STUB_COUNT_MISSING"
ROUNDS: Final = 5


def check(
    sections: Sections,
    dealing: str,
    table_id: str,
    round_id: str,
    start_ids: tuple[str, ...],
    ts: str,
) -> Finding:
    return table_finding(
        table_id,
        round_id,
        CODE,
        dealing_section(sections.stub_cadence, dealing),
        f"{ROUNDS} rounds in a row without a stub count (the shuffler does not count cards)",
        start_ids,
        ts,
    )
