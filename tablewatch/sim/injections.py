"""Which dealer and controller errors a round is given, one per affected round.

Each code of the protocol's Findings table can be injected where the table
allows it (a progressive error needs a progressive wager offered, a stub
count error a shuffler that does not count, a game's own check code that
game, ...). A round's plan also holds the rare hands placed on demand and
the irregularities handled correctly (a misdeal, a shoe fault, a card found
face up in the deck).

Patterns across rounds are injected by table at a chosen strength, each drawing from
a random stream of its own (a floor without them draws nothing more): chips walked
(:class:`HoldDrift`), a meter growing at the wrong rate (:class:`MeterDrift`), a
colluding dealer overpaying one seat (:class:`FavouringDealer`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tablewatch.rules.cards import Card
from tablewatch.rules.checks.catalog import PROTOCOL_CHECKS
from tablewatch.rules.games import all_rules

if TYPE_CHECKING:
    from tablewatch.sim.table_sim import TableSim
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


# ---- patterns across rounds, injected at a chosen strength ------------------------------


@dataclass(frozen=True, slots=True)
class HoldDrift:
    """Chips walked at the floor's table ``table`` (from 0): in a share ``strength`` of its
    rounds, every wager the house won is settled ``push`` (the stake handed back, nothing
    collected). Each such line is a WRONG_PAYOUT in the truth; the table's hold drifts
    down by about the lost stakes of ``strength`` of its rounds."""

    table: int
    strength: float
    seed: int = 0


@dataclass(frozen=True, slots=True)
class MeterDrift:
    """The progressive meter of the floor's table ``table`` grows by its rate of
    progression times ``1 + strength`` (``-0.1``: 10% too slowly)."""

    table: int
    strength: float


@dataclass(frozen=True, slots=True)
class FavouringDealer:
    """A colluding dealer at the floor's table ``table``: ``DL-<table>-C`` deals every other
    down there and, in a share ``strength`` of his rounds with ``seat`` played, pays that
    seat one losing wager as won even money (or one won wager a stake too much). Each is a
    WRONG_PAYOUT in the truth."""

    table: int
    seat: int
    strength: float
    seed: int = 0


PatternInjection = HoldDrift | MeterDrift | FavouringDealer
_PATTERN_KINDS = {"hold": HoldDrift, "meter": MeterDrift, "dealer": FavouringDealer}


def parse_pattern(text: str) -> PatternInjection:
    """``hold:TABLE:X``, ``meter:TABLE:X`` or ``dealer:TABLE:SEAT:X`` (TABLE from 0); a
    ``ValueError`` naming the item, the field and the reason."""
    kind, _, rest = text.partition(":")
    parts = rest.split(":")
    if kind not in _PATTERN_KINDS:
        raise ValueError(f"{text!r}: kind {kind!r} is not one of hold, meter, dealer")
    wanted = 3 if kind == "dealer" else 2
    if len(parts) != wanted:
        form = "dealer:TABLE:SEAT:X" if kind == "dealer" else f"{kind}:TABLE:X"
        raise ValueError(f"{text!r}: expected {form}")
    try:
        table = int(parts[0])
    except ValueError:
        raise ValueError(f"{text!r}: TABLE {parts[0]!r} is not a table's number from 0") from None
    try:
        strength = float(parts[-1])
    except ValueError:
        raise ValueError(f"{text!r}: strength {parts[-1]!r} is not a number") from None
    if kind == "meter":
        if not -1 < strength <= 10:
            raise ValueError(f"{text!r}: strength {strength:g} is not over -1 and at most 10")
        return MeterDrift(table, strength)
    if not 0 <= strength <= 1:
        raise ValueError(f"{text!r}: strength {strength:g} is not a share from 0 to 1")
    if kind == "hold":
        return HoldDrift(table, strength)
    try:
        seat = int(parts[1])
    except ValueError:
        raise ValueError(f"{text!r}: SEAT {parts[1]!r} is not a seat 1 to 7") from None
    if not 1 <= seat <= 7:
        raise ValueError(f"{text!r}: SEAT {seat} is not a seat 1 to 7")
    return FavouringDealer(table, seat, strength)


def pattern_text(pattern: PatternInjection) -> str:
    """The injection as :func:`parse_pattern` reads it: ``dealer:0:3:0.2``."""
    if isinstance(pattern, HoldDrift):
        return f"hold:{pattern.table}:{pattern.strength:g}"
    if isinstance(pattern, MeterDrift):
        return f"meter:{pattern.table}:{pattern.strength:g}"
    return f"dealer:{pattern.table}:{pattern.seat}:{pattern.strength:g}"


def inject_pattern(sims: Sequence[TableSim], pattern: PatternInjection) -> None:
    """Give the floor's table ``pattern.table`` the pattern; ``ValueError`` naming it and
    the reason when the table cannot take it."""
    name = pattern_text(pattern)
    if not 0 <= pattern.table < len(sims):
        raise ValueError(f"{name}: table {pattern.table} is not 0 to {len(sims) - 1}")
    table = sims[pattern.table].table
    if isinstance(pattern, HoldDrift):
        table.hold_drift = (pattern.strength, random.Random(pattern.seed))
    elif isinstance(pattern, MeterDrift):
        config = table.config
        if not config.progressive_rate or config.progressive_reset is None:
            raise ValueError(
                f"{name}: table {pattern.table} ({config.table_id}) has no progressive "
                "meter with a rate of progression"
            )
        table.meter_drift = pattern.strength
    else:
        table.favoured = (pattern.seat, pattern.strength, random.Random(pattern.seed))
