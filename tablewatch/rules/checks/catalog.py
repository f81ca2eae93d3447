"""Every check code this service reports, with its severity and what it means.

The first block is the protocol's Findings table (``docs/protocol.md``):
names and meanings are a contract. The second block is this service's own; the
third, its own too, the patterns across rounds (``tablewatch.patterns``).
Severities: ``critical`` money went to the wrong place; ``high`` a procedure
that protects the game's integrity was broken; ``medium`` a control was
missed or the record is incomplete; ``low`` worth a look.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Check:
    code: str
    severity: str
    meaning: str


def _catalog(*checks: Check) -> dict[str, Check]:
    return {c.code: c for c in checks}


PROTOCOL_CHECKS: Final = _catalog(
    Check(
        "WRONG_PAYOUT",
        "critical",
        "a wager settled for other than the rules and pay tables require",
    ),
    Check("BET_AFTER_LOCKOUT", "high", "a wager placed, increased or removed after the lockout"),
    Check("PROGRESSIVE_COUNT_MISMATCH", "high", "progressive chips differ from wagers accepted"),
    Check(
        "STUB_COUNT_MISSING",
        "medium",
        "5 rounds in a row with no stub count (non-counting shuffler)",
    ),
    Check(
        "STUB_COUNT_MISMATCH", "high", "stub count and cards dealt do not make 52; round not voided"
    ),
    Check(
        "SHUFFLER_COUNT_MISMATCH",
        "high",
        "a counting shuffler reported other than 52 cards; deck kept",
    ),
    Check(
        "JACKPOT_PAID_FROM_INVENTORY", "critical", "a meter jackpot paid from the table inventory"
    ),
    Check(
        "JACKPOT_NOT_VALIDATED", "high", "a progressive payout without a floorperson's validation"
    ),
    Check(
        "ENVY_BONUS_WRONG",
        "critical",
        "an Envy Bonus missing, wrong, or paid for an ineligible hand",
    ),
    Check(
        "PLAY_WAGER_OUT_OF_RANGE",
        "high",
        "a Play wager of an amount its game does not allow (e.g. under 1x or over 3x the Ante)",
    ),
    Check(
        "DECISION_MISSING",
        "high",
        "a seat with a live Ante that neither played nor folded before the dealer's cards "
        "were turned (its wagers settled as after a fold)",
    ),
    Check("UNEQUAL_BETS", "medium", "bets its game requires equal that are not equal"),
    Check(
        "LATE_WITHDRAWAL",
        "high",
        "a bet pulled after the card that closes that decision was turned",
    ),
    Check("UNSETTLED_WAGER", "high", "a wager never settled, or settled twice"),
    Check("ROUND_NOT_VOIDED", "critical", "a round that had to be voided was settled instead"),
    Check("VOID_NOT_RETURNED", "critical", "a voided round in which a wager was paid or collected"),
    Check("DUPLICATE_CARD", "high", "the same card dealt twice in one round"),
    Check("DECK_CHANGE_OVERDUE", "medium", "a deck in play past 4 hours (hand) or 8 hours (shoe)"),
    Check("SEQUENCE_GAP", "high", "the controller's seq skipped numbers: events were lost"),
    Check("ROUND_INCOMPLETE", "medium", "a round with no round_end"),
)

OWN_CHECKS: Final = _catalog(
    Check(
        "TABLE_NOT_CONFIGURED", "critical", "events from a table with no configuration: not audited"
    ),
    Check("GAME_MISMATCH", "critical", "table_open names a game other than the configuration's"),
    Check(
        "WAGER_NOT_OFFERED", "high", "a wager the game or the table's configuration does not offer"
    ),
    Check("EVENT_OUTSIDE_ROUND", "high", "a round event for a round that is not open"),
    Check("SEQUENCE_REGRESSION", "high", "a new event_id with a seq not above the last one"),
    Check(
        "EVENT_NOT_PROCESSED",
        "critical",
        "a message the live worker could not decode, judge or store: dead-lettered, not audited",
    ),
    Check(
        "ROUND_ID_REUSED",
        "high",
        "a round given the round_id of an earlier round at the same table (both kept)",
    ),
)

# This service's own too: patterns across many rounds (tablewatch.patterns), each a
# statistic past its threshold, resting on no regulation section (patterns.finding.BASIS).
PATTERN_CHECKS: Final = _catalog(
    Check(
        "ADVANTAGE_PLAY_SUSPECTED",
        "high",
        "a player whose decisions track the hidden cards beyond chance (statistical test)",
    ),
    Check(
        "DEALER_FAVOURS_SEAT",
        "high",
        "a dealer's money errors in the players' favour concentrated on one seat or player "
        "beyond chance (statistical test)",
    ),
    Check(
        "DEALER_ERROR_RATE_HIGH",
        "medium",
        "a dealer's rate of one check's findings far above the floor's (statistical test)",
    ),
    Check(
        "HOLD_OUT_OF_BAND",
        "high",
        "a table's hold over a shift out of the band its game's edge and variance allow "
        "(statistical test)",
    ),
    Check(
        "METER_INCREMENT_WRONG",
        "high",
        "a progressive meter's increments off the rate of progression times the progressive "
        "wagers accepted",
    ),
)

CHECKS: Final[dict[str, Check]] = {**PROTOCOL_CHECKS, **OWN_CHECKS, **PATTERN_CHECKS}
