"""Which dealer and controller errors a round is given, one per affected round.

Each code of the protocol's Findings table can be injected where the table
allows it (a progressive error needs a progressive wager offered, a stub
count error a shuffler that does not count, a game's own check code that
game, ...). A round's plan also holds the rare hands placed on demand and
the irregularities handled correctly (a misdeal, a shoe fault, a card found
face up in the deck).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tablewatch.rules.cards import Card
from tablewatch.rules.checks.catalog import PROTOCOL_CHECKS
from tablewatch.rules.games import all_rules

if TYPE_CHECKING:
    from tablewatch.sim.table_state import SimTable


@dataclass(slots=True)
class Injection:
    code: str
    seat: int | None = None
    bet: str | None = None
    done: bool = False


@dataclass(slots=True)
class RoundPlan:
    """What happens this round beyond clean play."""

    inject: Injection | None = None
    rigged: dict[str, list[Card]] = field(default_factory=dict)  # cards placed, by target
    natural: str | None = None  # a correctly handled irregularity: misdeal, shoe_fault, face_up

    @property
    def code(self) -> str | None:
        """The code of the injected error, if any."""
        return self.inject.code if self.inject else None


def applicable(table: SimTable, *, forgetting_stub: bool) -> list[str]:
    """The codes this table's round can be given, in the catalog's order."""
    config = table.config
    progressive = "progressive" in config.paytables
    skip = set()
    if not progressive:
        skip |= {
            "PROGRESSIVE_COUNT_MISMATCH",
            "JACKPOT_PAID_FROM_INVENTORY",
            "JACKPOT_NOT_VALIDATED",
            "ENVY_BONUS_WRONG",
        }
    if not (config.envy_per_dollar or config.five_card_envy_per_dollar):
        skip.add("ENVY_BONUS_WRONG")  # the table pays no Envy Bonus
    own = {check.code for check in config.rules.checks}
    skip |= {check.code for rules in all_rules() for check in rules.checks} - own
    if not table.game.late_bets(config):
        skip.add("BET_AFTER_LOCKOUT")
    if config.counting_shuffler:
        skip.add("STUB_COUNT_MISSING")
    else:
        skip.add("SHUFFLER_COUNT_MISMATCH")
    if forgetting_stub:
        skip |= {"STUB_COUNT_MISSING", "STUB_COUNT_MISMATCH"}
    games_own = [c.code for c in config.rules.checks if c.code not in PROTOCOL_CHECKS]
    codes = [*PROTOCOL_CHECKS, *games_own]
    return [code for code in codes if code not in skip]


def choose_injection(rng: random.Random, options: list[str]) -> Injection:
    return Injection(rng.choice(options))


def plan_round(table: SimTable) -> RoundPlan:
    """This round's error, rare hand or handled irregularity, if any."""
    plan = RoundPlan()
    rng = table.rng
    landing = table.forgetting_stub and table.stubless == 4
    if not landing and rng.random() < table.error_rate:
        options = applicable(table, forgetting_stub=table.forgetting_stub)
        plan.inject = choose_injection(rng, options)
        if plan.inject.code == "STUB_COUNT_MISSING":
            table.forgetting_stub = True
            plan.inject = None  # the finding lands on the fifth round without a count
    elif not landing:
        roll = rng.random()
        if roll < 0.01:
            plan.natural = "misdeal"
        elif roll < 0.02 and table.dealing == "automated_shoe":
            plan.natural = "shoe_fault"
        elif roll < 0.03:
            plan.natural = "face_up"
    if table.jackpot_rate and rng.random() < table.jackpot_rate and plan.natural is None:
        plan.rigged = {"rare": []}  # resolved once seats are known
    return plan
