"""Expected settlement of a round, by game."""

from tablewatch.rules.config import TableConfig
from tablewatch.rules.round_view import RoundView
from tablewatch.rules.settlement.expected import Expected, ExpectedEnvy, PayoutLimit, Settlement
from tablewatch.rules.settlement.four_card_poker import settle_four_card_poker
from tablewatch.rules.settlement.let_it_ride import settle_let_it_ride

__all__ = ["Expected", "ExpectedEnvy", "PayoutLimit", "Settlement", "expected_settlement"]


def expected_settlement(view: RoundView, config: TableConfig) -> Settlement:
    """What every wager of the round should be settled for under ``config``."""
    if config.game == "four_card_poker":
        return settle_four_card_poker(view, config)
    return settle_let_it_ride(view, config)
