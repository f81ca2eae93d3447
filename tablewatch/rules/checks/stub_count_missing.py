"""STUB_COUNT_MISSING: no stub count in 5 rounds in a row at a table whose shuffler does not count.

§ 641a.8(f), 641a.9(d), 641a.10(d); § 643a.8(f), 643a.9(d), 643a.10(d): count
the stub at least once every 5 rounds. Rounds are counted by ``round_start``;
reported on the fifth round, then the count starts again.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks.table_level import table_finding
from tablewatch.rules.findings import Finding

CODE: Final = "STUB_COUNT_MISSING"
ROUNDS: Final = 5
FCP: Final = {"manual_shoe": "§ 641a.8(f)", "hand": "§ 641a.9(d)", "automated_shoe": "§ 641a.10(d)"}
LIR: Final = {"manual_shoe": "§ 643a.8(f)", "hand": "§ 643a.9(d)", "automated_shoe": "§ 643a.10(d)"}


def check(
    game: str, dealing: str, table_id: str, round_id: str, start_ids: tuple[str, ...], ts: str
) -> Finding:
    sections = FCP if game == "four_card_poker" else LIR
    return table_finding(
        table_id,
        round_id,
        CODE,
        sections.get(dealing, sections["hand"]),
        f"{ROUNDS} rounds in a row without a stub count (the shuffler does not count cards)",
        start_ids,
        ts,
    )
