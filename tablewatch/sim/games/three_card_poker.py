"""Three Card Poker as the simulator plays it: Ante, Pair Plus, Six Card Bonus, play or fold.

Dealing: three cards to each seat in play and three to the dealer, all face
down, one at a time in turn (an automated shoe gives each hand its three at
once). Every seat wagers the Ante; most add a Pair Plus, some the Six Card
Bonus or the progressive. Players Play (the Ante exactly) with Q-6-4 or
better and fold the rest. Pay tables are stated by rows in the configuration
(Pair Plus 40-30-6-3-1 or 40-30-6-4-1, ...).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from tablewatch.rules.cards import Card, parse_cards
from tablewatch.rules.game_rules import GameRules
from tablewatch.rules.games import rules_of
from tablewatch.rules.games.three_card_poker.decision_values import best_with_first, bonus_net
from tablewatch.rules.hands import strength3
from tablewatch.rules.settlement.expected import distinct
from tablewatch.sim.dealing import cards_of
from tablewatch.sim.games.simulated_game import Rigged, SimulatedGame

if TYPE_CHECKING:
    from tablewatch.sim.dealing import Deal, Wagers
    from tablewatch.sim.injections import RoundPlan
    from tablewatch.sim.players import Player
    from tablewatch.sim.table_state import SimTable

NAME: Final = "three_card_poker"
PAIR_PLUS: Final = ([40, 30, 6, 3, 1], [40, 30, 6, 4, 1], [40, 30, 6, 5, 1], [35, 33, 6, 4, 1])
ANTE_BONUS: Final = ([5, 4, 1], [5, 3, 1])
SIX_CARD_BONUS: Final = ([1000, 200, 50, 25, 15, 10, 5], [1000, 200, 100, 20, 15, 10, 7])
# mini-royal, straight flush, three of a kind, straight, flush (0: not paid)
PROGRESSIVE: Final = ["100% of meter", "10% of meter", "30 for 1", "6 for 1", 0]
ENVY: Final = ["$100", "$20", 0, 0, 0]  # per $1 of each other progressive wager
QUEEN_SIX_FOUR: Final = strength3(parse_cards(["Qc", "6d", "4h"]))


class ThreeCardPoker(SimulatedGame):
    """Three Card Poker as played; ``rules``: its descriptor (the registry's by default; a
    test's toy game played the same way, with its ``prefix``)."""

    side_bets = ("pair_plus", "six_card_bonus")
    hole_carding = True

    def __init__(self, rules: GameRules | None = None, prefix: str = "TCP") -> None:
        self.rules = rules or rules_of(NAME)
        self.prefix = prefix

    def floor_table(
        self, index: int, rng: random.Random, progressive: bool
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        paytables: dict[str, Any] = {
            "pair_plus": {"rows": list(rng.choice(PAIR_PLUS))},
            "ante_bonus": {"rows": list(rng.choice(ANTE_BONUS))},
        }
        if rng.random() < 0.5:
            paytables["six_card_bonus"] = {"rows": list(rng.choice(SIX_CARD_BONUS))}
        table: dict[str, Any] = {"game": self.rules.name}
        if progressive:
            paytables["progressive"] = {"rows": list(PROGRESSIVE)}
            paytables["envy"] = {"rows": list(ENVY)}
            table["progressive_reset"] = rng.choice((100_000, 250_000))
        return table, paytables

    def seat_wagers(self, table: SimTable, seat: int, player: Player, wagers: Wagers) -> None:
        rng = table.rng
        offered = table.config.paytables
        wagers[(seat, "ante")] = player.unit
        if rng.random() < 0.4 + 0.6 * player.side_bet_rate:  # Pair Plus: most players
            wagers[(seat, "pair_plus")] = rng.choice((500, 1000, player.unit))
        if "six_card_bonus" in offered and rng.random() < player.side_bet_rate * 0.4:
            wagers[(seat, "six_card_bonus")] = rng.choice((500, 500, 1000))
        if "progressive" in offered and rng.random() < player.progressive_rate:
            wagers[(seat, "progressive")] = player.progressive_chip

    def may_remove(self, wagers: Wagers, seat: int) -> bool:
        return (seat, "ante") in wagers

    def jackpot_hand(self, seats: dict[int, Player], seat: int, wagers: Wagers) -> Rigged:
        wagers.setdefault((seat, "ante"), seats[seat].unit)
        return {f"seat:{seat}": _cards("As Ks Qs")}  # a mini-royal: the meter

    def envy_hand(self, seats: dict[int, Player], holder: int, wagers: Wagers) -> Rigged:
        wagers.setdefault((holder, "ante"), seats[holder].unit)
        return {f"seat:{holder}": _cards("Ah Kh Qh")}  # a mini-royal earns the others' Envy

    def force_for_injection(
        self, table: SimTable, seats: dict[int, Player], wagers: Wagers, plan: RoundPlan
    ) -> None:
        inject = plan.inject
        if inject is None:
            return
        if inject.code in ("PLAY_WAGER_OUT_OF_RANGE", "DECISION_MISSING"):
            seat = table.rng.choice(sorted(seats))
            wagers.setdefault((seat, "ante"), max(seats[seat].unit, 200))
            if inject.code == "PLAY_WAGER_OUT_OF_RANGE":
                plan.rigged = {f"seat:{seat}": _cards("Kh Kd")}  # a hand that plays
            inject.seat = seat

    def deal_targets(
        self, dealing: str, seats: list[int], wagers: Wagers
    ) -> list[tuple[str, bool]]:
        places = [f"seat:{s}" for s in seats] + ["dealer"]
        if dealing == "automated_shoe":
            return [(place, False) for place in places for _ in range(3)]
        return [(place, False) for _ in range(3) for place in places]

    def rare_hand(self, rng: random.Random, seat: int) -> Rigged:
        """A mini-royal (the meter), a straight flush, three of a kind, or a royal flush of
        the seat's and the dealer's cards (the Six Card Bonus's top row)."""
        suit = rng.choice("shdc")
        kind = rng.random()
        if kind < 0.3:
            return {f"seat:{seat}": _cards(f"A{suit} K{suit} Q{suit}")}
        if kind < 0.5:
            return {
                f"seat:{seat}": _cards(f"A{suit} K{suit} Q{suit}"),
                "dealer": _cards(f"J{suit} T{suit}"),
            }
        ranks = "23456789TJQKA"
        if kind < 0.75:
            top = rng.randint(2, 11)
            return {f"seat:{seat}": _cards(" ".join(f"{ranks[top - i]}{suit}" for i in range(3)))}
        rank = rng.choice(ranks)
        return {f"seat:{seat}": _cards(" ".join(rank + s for s in "hdc"))}

    def decide(self, table: SimTable, wagers: Wagers, dealt: list[Deal], plan: RoundPlan) -> None:
        """Play (the Ante) or fold, seat by seat, then the dealer's cards are turned: a Play
        other than the Ante for an injected PLAY_WAGER_OUT_OF_RANGE, no decision at all for
        an injected DECISION_MISSING."""
        rng = table.rng
        t = table.t
        inject = plan.inject
        code = plan.code
        for seat in sorted({s for s, _ in wagers}):
            ante = wagers.get((seat, "ante"))
            if not ante:
                continue
            if code == "DECISION_MISSING" and inject is not None and inject.seat == seat:
                table.record("DECISION_MISSING", seat)
                continue
            hand = cards_of(dealt, f"seat:{seat}")
            play = plays(hand)
            carder = table.hole_carder
            if carder is not None and carder.seat == seat and carder.looks():
                play = plays_seeing(table, hand, cards_of(dealt, "dealer"))
            amount = ante
            if code == "PLAY_WAGER_OUT_OF_RANGE" and inject is not None and inject.seat == seat:
                play = True
                amount = 2 * ante if rng.random() < 0.6 or ante < 200 else ante // 2
                table.record("PLAY_WAGER_OUT_OF_RANGE", seat, "play")
            if play:
                t.decision(seat, "play", amount=amount)
            else:
                t.decision(seat, "fold")
            table.pause(500, 3_000)
        t.reveal("dealer")


def plays(cards: Sequence[Card]) -> bool:
    """Play with queen-six-four or better (the Q-6-4 strategy); fold the rest.

    A hand holding the same card twice (an injected DUPLICATE_CARD) has no rank: it plays.
    """
    if len(cards) != 3 or not distinct(cards):
        return True
    return strength3(cards) >= QUEEN_SIX_FOUR


def plays_seeing(table: SimTable, hand: Sequence[Card], dealer: Sequence[Card]) -> bool:
    """A hole-carder's play, the dealer's first card seen: the option best with it known (a
    hand with no rank plays as :func:`plays` says)."""
    if len(hand) != 3 or not distinct(hand) or not dealer:
        return plays(hand)
    key = tuple(sorted(hand))
    bonus = bonus_net(table.config, tuple(hand))
    return best_with_first((key[0], key[1], key[2]), bonus, dealer[0]) == "play"


def _cards(text: str) -> list[Card]:
    return list(parse_cards(text.split()))


SIMULATOR: Final = ThreeCardPoker()
