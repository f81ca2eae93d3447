"""What the house won on a settlement line, as the table settled it or as it was owed.

The hold rollups' rule (``hold_by_round_lines_mv``, docs/store.md "Hold"): a lost
wager's stake is the house's; a win pays ``paid`` and, where the odds are "for 1"
(the game's :class:`~tablewatch.rules.game_rules.HoldWager` ``kept``), the house kept
the stake; a push or a return moves nothing.
"""

from __future__ import annotations

from tablewatch.rules.round_result import SettlementLine


def house_win(result: str | None, paid: int | None, stake: int, kept: bool) -> int:
    """Cents the house won on one line settled ``result`` with ``paid``."""
    if result == "lose":
        return stake
    if result == "win":
        return stake - (paid or 0) if kept else -(paid or 0)
    return 0


def actual_win(line: SettlementLine, kept: bool) -> int:
    """What the house won on the line as the table settled it."""
    return house_win(line.actual_result, line.actual_paid, line.stake, kept)


def owed_win(line: SettlementLine, kept: bool) -> int | None:
    """What the house was to win on the line (None: nothing was owed, or unpriced)."""
    if line.expected_result is None or line.expected_paid is None:
        return None
    return house_win(line.expected_result, line.expected_paid, line.stake, kept)
