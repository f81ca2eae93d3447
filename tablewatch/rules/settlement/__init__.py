"""Expected settlement of a round: the game's own (its descriptor's ``settle``)."""

from tablewatch.rules.round_view import RoundView
from tablewatch.rules.settlement.expected import Expected, ExpectedEnvy, PayoutLimit, Settlement
from tablewatch.rules.table_config import TableConfig

__all__ = ["Expected", "ExpectedEnvy", "PayoutLimit", "Settlement", "expected_settlement"]


def expected_settlement(view: RoundView, config: TableConfig) -> Settlement:
    """What every wager of the round should be settled for under ``config``."""
    return config.rules.settle(view, config)
