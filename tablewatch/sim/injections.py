"""Which dealer and controller errors a round can be given, one per affected round.

Each code of the protocol's Findings table can be injected where the table
allows it (a progressive error needs a progressive wager offered, a stub
count error a shuffler that does not count, ...).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tablewatch.rules.checks.catalog import PROTOCOL_CHECKS
from tablewatch.rules.config import TableConfig


@dataclass(slots=True)
class Injection:
    code: str
    seat: int | None = None
    bet: str | None = None
    done: bool = False


def applicable(config: TableConfig, *, forgetting_stub: bool) -> list[str]:
    lir = config.game == "let_it_ride"
    progressive = "progressive" in config.paytables
    skip = set()
    if not progressive:
        skip |= {
            "PROGRESSIVE_COUNT_MISMATCH",
            "JACKPOT_PAID_FROM_INVENTORY",
            "JACKPOT_NOT_VALIDATED",
            "ENVY_BONUS_WRONG",
        }
    if lir:
        skip.add("PLAY_WAGER_OUT_OF_RANGE")
        if not any(b in config.paytables for b in ("five_card_bonus", "three_card_bonus")):
            skip.add("BET_AFTER_LOCKOUT")
    else:
        skip |= {"UNEQUAL_BETS", "LATE_WITHDRAWAL"}
    if config.counting_shuffler:
        skip.add("STUB_COUNT_MISSING")
    else:
        skip.add("SHUFFLER_COUNT_MISMATCH")
    if forgetting_stub:
        skip |= {"STUB_COUNT_MISSING", "STUB_COUNT_MISMATCH"}
    return [code for code in PROTOCOL_CHECKS if code not in skip]


def choose_injection(rng: random.Random, options: list[str]) -> Injection:
    return Injection(rng.choice(options))
