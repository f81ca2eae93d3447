"""One small scripted table: a mispaid round, a lost-events gap, a clean round."""

from __future__ import annotations

from tablewatch.rules.events import AnyEvent
from tablewatch.script import TableScript
from tests.scenarios import lir_round, lir_table


def mispaid_table(round_end: bool = True) -> TableScript:
    """R-1 pays $20 on three $25 winning bets (3 WRONG_PAYOUT), then 2 events are lost before a
    meter reading (table-level SEQUENCE_GAP), then R-2 is clean. ``round_end=False`` stops
    before R-2's last settle and round_end (R-2 then ROUND_INCOMPLETE)."""
    t = lir_table()
    lir_round(t, "R-1", paid_each=2000)
    t.skip_seq(2)
    t.meter(100_000)
    lir_round(t, "R-2")
    if not round_end:
        del t.events[-2:]
    return t


def events(round_end: bool = True) -> list[AnyEvent]:
    return mispaid_table(round_end).events
