"""Four Card Poker as the simulator plays it: Ante and Aces Up, raise or fold.

Dealing (§§ 641a.8(d), 641a.9(b)): one card at a time to each player and
the dealer until players have five and the dealer six, the dealer's sixth
face up; an automated shoe (§ 641a.10(b)) gives stacks of five, the dealer a
stack of five and the bottom card of the next stack face up, the rest
discarded. Players Play 3x with a pair of tens or better, 1x with a lower
pair, and fold the rest; an injected hole-carder who sees the dealer's first
card takes the option best with it known (the game's decision values).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from tablewatch.rules.cards import TEN, Card, parse_cards
from tablewatch.rules.games import four_card_poker
from tablewatch.rules.games.four_card_poker.decision_values import (
    MULTIPLES,
    OPTIONS,
    best_with_first,
)
from tablewatch.rules.hands import Hand4, best4of5, category_of, leading_rank
from tablewatch.rules.settlement.expected import distinct
from tablewatch.sim.dealing import cards_of
from tablewatch.sim.games.simulated_game import Rigged, SimulatedGame

if TYPE_CHECKING:
    from tablewatch.sim.dealing import Deal, Wagers
    from tablewatch.sim.injections import RoundPlan
    from tablewatch.sim.players import Player
    from tablewatch.sim.table_state import SimTable


class FourCardPoker(SimulatedGame):
    rules = four_card_poker.RULES
    prefix = "FCP"
    side_bets = ("aces_up",)
    hole_carding = True

    def floor_table(
        self, index: int, rng: random.Random, progressive: bool
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        paytables: dict[str, Any] = {"aces_up": rng.choice("ABCDEF")}
        table: dict[str, Any] = {"game": self.rules.name}
        if progressive:
            letter = rng.choice("AB")
            paytables["progressive"] = letter
            paytables["envy"] = rng.choice("AB")
            table["progressive_reset"] = 500_000 if letter == "A" else 100_000
        return table, paytables

    def seat_wagers(self, table: SimTable, seat: int, player: Player, wagers: Wagers) -> None:
        rng = table.rng
        if not player.side_bet_only:
            wagers[(seat, "ante")] = player.unit
        if player.side_bet_only or rng.random() < player.side_bet_rate:
            wagers[(seat, "aces_up")] = rng.choice((500, 1000, player.unit))
        if "progressive" in table.config.paytables and rng.random() < player.progressive_rate:
            wagers[(seat, "progressive")] = player.progressive_chip

    def may_remove(self, wagers: Wagers, seat: int) -> bool:
        return (seat, "ante") in wagers  # an Aces Up wager alone stays

    def jackpot_hand(self, seats: dict[int, Player], seat: int, wagers: Wagers) -> Rigged:
        wagers.setdefault((seat, "ante"), seats[seat].unit)
        return {f"seat:{seat}": _cards("Ah Ad Ac As")}  # four aces: the meter

    def envy_hand(self, seats: dict[int, Player], holder: int, wagers: Wagers) -> Rigged:
        wagers.setdefault((holder, "ante"), seats[holder].unit)
        return {f"seat:{holder}": _cards("Kh Kd Kc Ks")}  # four of a kind

    def force_for_injection(
        self, table: SimTable, seats: dict[int, Player], wagers: Wagers, plan: RoundPlan
    ) -> None:
        inject = plan.inject
        if inject is not None and inject.code == "PLAY_WAGER_OUT_OF_RANGE":
            seat = table.rng.choice(sorted(seats))
            wagers.setdefault((seat, "ante"), max(seats[seat].unit, 200))
            plan.rigged = {f"seat:{seat}": _cards("Th Td")}
            inject.seat, inject.bet = seat, "play"

    def deal_targets(
        self, dealing: str, seats: list[int], wagers: Wagers
    ) -> list[tuple[str, bool]]:
        places = [f"seat:{s}" for s in seats]
        order: list[tuple[str, bool]] = []
        if dealing == "automated_shoe":
            for place in places:
                order += [(place, False)] * 5
            order += [("dealer", False)] * 5 + [("dealer", True)] + [("discard", False)] * 4
        else:
            for _ in range(5):
                order += [(p, False) for p in places]
                order.append(("dealer", False))
            order.append(("dealer", True))
        return order

    def rare_hand(self, rng: random.Random, seat: int) -> Rigged:
        """Four aces (the meter), another four of a kind, or a straight flush."""
        kind = rng.random()
        if kind < 0.35:
            return {f"seat:{seat}": list(parse_cards(["Ah", "Ad", "Ac", "As"]))}
        ranks = "23456789TJQK"
        if kind < 0.7:
            rank = rng.choice(ranks)
            return {f"seat:{seat}": list(parse_cards([rank + s for s in "hdcs"]))}
        suit = rng.choice("shdc")
        top = rng.randint(3, 12)
        all_ranks = "23456789TJQKA"
        return {
            f"seat:{seat}": list(parse_cards([f"{all_ranks[top - i]}{suit}" for i in range(4)]))
        }

    def decide(self, table: SimTable, wagers: Wagers, dealt: list[Deal], plan: RoundPlan) -> None:
        """Play or fold, seat by seat (a Play out of range for an injected
        PLAY_WAGER_OUT_OF_RANGE), then the dealer's hand is revealed."""
        rng = table.rng
        t = table.t
        inject = plan.inject
        for seat in sorted({s for s, _ in wagers}):
            ante = wagers.get((seat, "ante"))
            if not ante:
                continue
            cards = cards_of(dealt, f"seat:{seat}")
            play = play_amount(cards, ante)
            carder = table.hole_carder
            if carder is not None and carder.seat == seat and carder.looks():
                play = play_seeing(cards, cards_of(dealt, "dealer"), ante, play)
            if inject and inject.code == "PLAY_WAGER_OUT_OF_RANGE" and inject.seat == seat:
                play = 4 * ante if rng.random() < 0.7 or ante < 200 else ante // 2
                table.record("PLAY_WAGER_OUT_OF_RANGE", seat, "play")
            if play:
                t.decision(seat, "play", amount=play)
            else:
                t.decision(seat, "fold")
            table.pause(500, 3_000)
        t.reveal("dealer")


def play_amount(cards: Sequence[Card], ante: int) -> int:
    """Play 3x with a pair of tens or better, 1x with a pair of threes to nines; else fold (0).

    A hand holding the same card twice (an injected DUPLICATE_CARD) has no rank: play 1x.
    """
    if not distinct(cards):
        return ante
    hand = best4of5(cards)
    category = category_of(hand)
    if category > Hand4.PAIR:
        return 3 * ante
    if category == Hand4.PAIR:
        rank = leading_rank(hand)
        if rank >= TEN:
            return 3 * ante
        if rank >= 1:
            return ante
    return 0


def play_seeing(cards: Sequence[Card], dealer: Sequence[Card], ante: int, play: int) -> int:
    """A hole-carder's Play, the dealer's first card seen: the option best with it known (a
    hand with no rank, or a dealer hand not of six, plays ``play``, as the others do)."""
    if len(cards) != 5 or len(dealer) != 6 or len({*cards, *dealer}) != 11:
        return play
    best = best_with_first(tuple(cards), dealer[5], dealer[0])
    return MULTIPLES[OPTIONS.index(best)] * ante


def _cards(text: str) -> list[Card]:
    return list(parse_cards(text.split()))


SIMULATOR: Final = FourCardPoker()
