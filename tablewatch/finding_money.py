"""The money a finding shows, in words, by its check code: the one place that says it.

A finding stores two amounts, ``expected`` and ``actual`` (cents), whose meaning depends
on its check: an amount owed and one paid, a stake kept, a wager placed late, a wager
and the bound it passed. Printed as "expected ..., actual ..." they read wrong (a stake kept
in a voided round is no "expected $0.00"); every surface (the console, the pages, the
CSV, the alert mail) shows instead what :func:`finding_money` says: each amount with the
words naming it and, where something was owed, by how much it was over- or underpaid.

:data:`MONEY_OF` holds one entry per check code of the catalog
(``tablewatch.rules.checks.catalog.CHECKS``); a code with no money maps to ``None``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final


def dollars(cents: int) -> str:
    """``2500`` -> ``"$25.00"``, ``-150`` -> ``"-$1.50"`` (exact: integer arithmetic)."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{rest:02d}"


@dataclass(frozen=True, slots=True)
class Amount:
    words: str  # what the amount is: "owed", "paid", "stake kept", ...
    cents: int


@dataclass(frozen=True, slots=True)
class FindingMoney:
    """The amounts a finding shows, in order, and what they come to ("overpaid by ...")."""

    amounts: tuple[Amount, ...] = ()
    outcome: str = ""

    @property
    def text(self) -> str:
        """One line: ``"owed $25.00, paid $50.00: overpaid by $25.00"``; ``""``: no money."""
        shown = ", ".join(f"{a.words} {dollars(a.cents)}" for a in self.amounts)
        if shown and self.outcome:
            return f"{shown}: {self.outcome}"
        return shown or self.outcome

    def __bool__(self) -> bool:
        return bool(self.amounts or self.outcome)


NO_MONEY: Final = FindingMoney()
Shown = Callable[[int | None, int | None], FindingMoney]


def _owed_and_paid(expected: int | None, actual: int | None) -> FindingMoney:
    """An amount owed (``expected``; None: not known) and the amount paid (``actual``)."""
    if actual is None:
        return NO_MONEY if expected is None else FindingMoney((Amount("owed", expected),))
    if expected is None:
        return FindingMoney((Amount("paid", actual),), "owed not known (no meter reading)")
    amounts = (Amount("owed", expected), Amount("paid", actual))
    if actual > expected:
        return FindingMoney(amounts, f"overpaid by {dollars(actual - expected)}")
    if actual < expected:
        return FindingMoney(amounts, f"underpaid by {dollars(expected - actual)}")
    return FindingMoney(amounts, "paid as owed, settled with the wrong result")


def _kept_and_paid(expected: int | None, actual: int | None) -> FindingMoney:
    """A voided round: the stake kept where it was due back (``expected``), what was paid
    (``actual``)."""
    amounts = tuple(
        Amount(words, cents)
        for words, cents in (("stake kept", expected), ("paid", actual))
        if cents  # 0 or None: nothing of that kind moved
    )
    return FindingMoney(amounts) if amounts else FindingMoney((), "no stake kept, nothing paid")


def _within_bounds(expected: int | None, actual: int | None) -> FindingMoney:
    """A wager (``actual``) outside its bounds: ``expected`` the bound it passed."""
    if actual is None:
        return NO_MONEY
    if expected is None:
        return FindingMoney((Amount("wagered", actual),))
    bound = "most allowed" if actual > expected else "least allowed"
    return FindingMoney((Amount("wagered", actual), Amount(bound, expected)))


def _lowest_and_highest(expected: int | None, actual: int | None) -> FindingMoney:
    """Wagers that must be equal: the lowest (``expected``) and the highest (``actual``)."""
    amounts = tuple(
        Amount(words, cents)
        for words, cents in (("lowest bet", expected), ("highest bet", actual))
        if cents is not None
    )
    return FindingMoney(amounts)


def _one(words: str) -> Shown:
    """One amount, ``actual``, named by ``words`` (no amount: no money)."""

    def shown(expected: int | None, actual: int | None) -> FindingMoney:
        return NO_MONEY if actual is None else FindingMoney((Amount(words, actual),))

    return shown


def _none(expected: int | None, actual: int | None) -> FindingMoney:
    return NO_MONEY


MONEY_OF: Final[dict[str, Shown]] = {
    # money that moved at settlement
    "WRONG_PAYOUT": _owed_and_paid,
    "ENVY_BONUS_WRONG": _owed_and_paid,
    "VOID_NOT_RETURNED": _kept_and_paid,
    "UNSETTLED_WAGER": _one("paid in all"),  # settled more than once; never settled: none
    "JACKPOT_PAID_FROM_INVENTORY": _one("jackpot paid"),
    "JACKPOT_NOT_VALIDATED": _one("paid without validation"),
    # wagers
    "BET_AFTER_LOCKOUT": _one("placed after the lockout"),  # a removal: no amount
    "LATE_WITHDRAWAL": _one("pulled late"),
    "PLAY_WAGER_OUT_OF_RANGE": _within_bounds,
    "DECISION_MISSING": _one("stake with no decision"),
    "UNEQUAL_BETS": _lowest_and_highest,
    "WAGER_NOT_OFFERED": _one("wagered"),
    # no money: the count, the cards, the deck, the record
    "PROGRESSIVE_COUNT_MISMATCH": _none,
    "STUB_COUNT_MISSING": _none,
    "STUB_COUNT_MISMATCH": _none,
    "SHUFFLER_COUNT_MISMATCH": _none,
    "ROUND_NOT_VOIDED": _none,
    "DUPLICATE_CARD": _none,
    "DECK_CHANGE_OVERDUE": _none,
    "SEQUENCE_GAP": _none,
    "ROUND_INCOMPLETE": _none,
    "TABLE_NOT_CONFIGURED": _none,
    "GAME_MISMATCH": _none,
    "EVENT_OUTSIDE_ROUND": _none,
    "SEQUENCE_REGRESSION": _none,
    "EVENT_NOT_PROCESSED": _none,
    "ROUND_ID_REUSED": _none,
    # patterns across rounds: a statistic, its money in the message's rounds
    "ADVANTAGE_PLAY_SUSPECTED": _none,
    "DEALER_FAVOURS_SEAT": _none,
    "DEALER_ERROR_RATE_HIGH": _none,
    "HOLD_OUT_OF_BAND": _none,
    "METER_INCREMENT_WRONG": _none,
}


def _unknown_code(expected: int | None, actual: int | None) -> FindingMoney:
    """A code this version does not know (a store written by another): the amounts as
    stored, by their field names."""
    return FindingMoney(
        tuple(
            Amount(words, cents)
            for words, cents in (("expected", expected), ("actual", actual))
            if cents is not None
        )
    )


def finding_money(check: str, expected: int | None, actual: int | None) -> FindingMoney:
    """The money a finding of ``check`` with these amounts shows."""
    return MONEY_OF.get(check, _unknown_code)(expected, actual)


def money_text(check: str, expected: int | None, actual: int | None) -> str:
    """:func:`finding_money` as one line; ``""`` when the finding has no money."""
    return finding_money(check, expected, actual).text
