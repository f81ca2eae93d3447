"""Let It Ride as the simulator plays it: three equal bets, side bets, pull or ride.

Dealing (§§ 643a.8(d), 643a.9(b)): one card at a time to each player, then a
community card, twice, then the players' third cards; an automated shoe
(§ 643a.10(b)) dispenses stacks of three to each player and a stack of
three to the community area, whose left card is discarded; the Six Card
Bonus cards come last. Players ride or pull bets 1 and 2 by a plausible
strategy (pair of tens or better, close suited cards, draws).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from tablewatch.rules.cards import TEN, Card, parse_cards, rank_of, suit_of
from tablewatch.rules.games import let_it_ride
from tablewatch.rules.games.let_it_ride.decision_values import rides_seeing
from tablewatch.rules.games.let_it_ride.settlement import MAIN_BETS
from tablewatch.sim.dealing import cards_of
from tablewatch.sim.games.simulated_game import Rigged, SimulatedGame

if TYPE_CHECKING:
    from tablewatch.sim.dealing import Deal, Wagers
    from tablewatch.sim.injections import RoundPlan
    from tablewatch.sim.players import Player
    from tablewatch.sim.table_state import SimTable

SIDE_BETS: Final = ("five_card_bonus", "three_card_bonus")
# Casino-supplied 2019 pay tables (§ 643a.12(e)-(g)) for the one table that offers them.
FIVE_CARD_PROGRESSIVE: Final = {
    "royal_flush": "100% of meter",
    "straight_flush": "10% of meter",
    "four_of_a_kind": "500 for 1",
    "full_house": "100 for 1",
    "flush": "50 for 1",
    "straight": "30 for 1",
    "three_of_a_kind": "9 for 1",
}
FIVE_CARD_ENVY: Final = {"royal_flush": "$1,000", "straight_flush": "$100"}
SIX_CARD_BONUS: Final = {
    "royal_flush": "1000 to 1",
    "straight_flush": "200 to 1",
    "four_of_a_kind": "50 to 1",
    "full_house": "20 to 1",
    "flush": "15 to 1",
    "straight": "10 to 1",
    "three_of_a_kind": "5 to 1",
}
WITH_2019_WAGERS: Final = 2  # the floor's table (by index) offering the 2019 wagers


class LetItRide(SimulatedGame):
    rules = let_it_ride.RULES
    prefix = "LIR"
    side_bets = SIDE_BETS
    hole_carding = True

    def floor_table(
        self, index: int, rng: random.Random, progressive: bool
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        paytables: dict[str, Any] = {
            "main": rng.choice("AB"),
            "five_card_bonus": rng.choice("ABCDEF"),
            "three_card_bonus": rng.choice("ABCDEF"),
        }
        table: dict[str, Any] = {"game": self.rules.name, "payout_limit": 5_000_000}
        if progressive:
            paytables["progressive"] = rng.choice("AB")
            table["progressive_reset"] = rng.choice((100_000, 250_000))
        if index == WITH_2019_WAGERS:
            paytables["five_card_progressive"] = FIVE_CARD_PROGRESSIVE
            paytables["five_card_envy"] = FIVE_CARD_ENVY
            paytables["six_card_bonus"] = SIX_CARD_BONUS
            table.setdefault("progressive_reset", 100_000)
        return table, paytables

    def seat_wagers(self, table: SimTable, seat: int, player: Player, wagers: Wagers) -> None:
        rng = table.rng
        offered = table.config.paytables
        for bet in MAIN_BETS:
            wagers[(seat, bet)] = player.unit
        for bet in (*SIDE_BETS, "six_card_bonus"):
            if bet in offered and rng.random() < player.side_bet_rate * 0.5:
                wagers[(seat, bet)] = rng.choice((100, 500, 500, 1000))
        for bet in ("progressive", "five_card_progressive"):
            if bet in offered and rng.random() < player.progressive_rate:
                wagers[(seat, bet)] = player.progressive_chip

    def jackpot_hand(self, seats: dict[int, Player], seat: int, wagers: Wagers) -> Rigged:
        return {f"seat:{seat}": _cards("As Ks Qs")}  # a spade mini-royal: the meter

    def envy_hand(self, seats: dict[int, Player], holder: int, wagers: Wagers) -> Rigged:
        return {f"seat:{holder}": _cards("Ah Kh Qh")}  # a mini-royal

    def force_for_injection(
        self, table: SimTable, seats: dict[int, Player], wagers: Wagers, plan: RoundPlan
    ) -> None:
        if plan.code == "UNEQUAL_BETS":
            rng = table.rng
            seat = rng.choice(sorted(seats))
            bet = rng.choice(("bet2", "bet3"))
            wagers[(seat, bet)] = wagers[(seat, "bet1")] + rng.choice((-250, 500, 1000))
            table.record("UNEQUAL_BETS", seat)

    def deal_targets(
        self, dealing: str, seats: list[int], wagers: Wagers
    ) -> list[tuple[str, bool]]:
        places = [f"seat:{s}" for s in seats]
        order: list[tuple[str, bool]] = []
        if dealing == "automated_shoe":
            for place in places:
                order += [(place, False)] * 3
            order += [("community", False), ("community", False), ("discard", False)]
        else:
            for i in range(3):
                order += [(p, False) for p in places]
                if i < 2:
                    order.append(("community", False))
        if any(bet == "six_card_bonus" for _, bet in wagers):
            order += [("bonus", False)] * 3
        return order

    def rare_hand(self, rng: random.Random, seat: int) -> Rigged:
        """A mini-royal (spades: the meter), a royal flush with the community, or a straight
        flush."""
        suit = rng.choice("shdc")
        kind = rng.random()
        if kind < 0.45:
            return {f"seat:{seat}": list(parse_cards([f"A{suit}", f"K{suit}", f"Q{suit}"]))}
        if kind < 0.7:
            return {
                f"seat:{seat}": list(parse_cards([f"A{suit}", f"K{suit}", f"Q{suit}"])),
                "community": list(parse_cards([f"J{suit}", f"T{suit}"])),
            }
        top = rng.randint(5, 12)
        ranks = "23456789TJQKA"
        run = [f"{ranks[top - i]}{suit}" for i in range(5)]
        return {
            f"seat:{seat}": list(parse_cards(run[:3])),
            "community": list(parse_cards(run[3:])),
        }

    def decide(self, table: SimTable, wagers: Wagers, dealt: list[Deal], plan: RoundPlan) -> None:
        """Ride or pull bet 1, the first community card, bet 2, the second (a pull after its
        card for an injected LATE_WITHDRAWAL)."""
        rng = table.rng
        t = table.t
        seats = sorted({s for s, _ in wagers})
        community = cards_of(dealt, "community")
        late: tuple[int, str] | None = None
        if plan.code == "LATE_WITHDRAWAL":
            late = (rng.choice(seats), rng.choice(("bet1", "bet2")))
        for index, bet in ((1, "bet1"), (2, "bet2")):
            for seat in seats:
                if (seat, bet) == late:
                    continue  # decides after the card is turned
                cards = cards_of(dealt, f"seat:{seat}")
                keep = keeps_bet1(cards) if bet == "bet1" else keeps_bet2([*cards, community[0]])
                carder = table.hole_carder
                if bet == "bet1" and carder is not None and carder.seat == seat:
                    keep = rides_seeing_first(table, cards, community, keep, carder.looks())
                t.decision(seat, "ride" if keep else "pull", bet)
                table.pause(300, 2_000)
            t.reveal("community", index)
            if late is not None and late[1] == bet:
                table.pause(300, 1_500)
                t.decision(late[0], "pull", bet)
                table.record("LATE_WITHDRAWAL", late[0], bet)
            table.pause(1_000, 4_000)


def rides_seeing_first(
    table: SimTable, cards: Sequence[Card], community: Sequence[Card], keep: bool, sees: bool
) -> bool:
    """A hole-carder's Bet 1: when he ``sees`` the first community card, the choice best with
    it known; else ``keep``, as the other players choose."""
    letter = table.config.letter("main")
    if not sees or letter is None or len(cards) != 3 or len({*cards}) != 3 or not community:
        return keep
    if community[0] in cards:
        return keep
    three = sorted(cards)
    return rides_seeing(letter, (three[0], three[1], three[2]), community[0])


def keeps_bet1(cards: Sequence[Card]) -> bool:
    """Ride Bet 1 with a paying pair or trips, or three suited cards close together."""
    ranks = sorted(rank_of(c) for c in cards)
    if len(set(ranks)) < 3:
        pair = max(r for r in ranks if ranks.count(r) > 1)
        return pair >= TEN
    suited = len({suit_of(c) for c in cards}) == 1
    span = ranks[-1] - ranks[0]
    high = sum(r >= TEN for r in ranks)
    return suited and ((span <= 2 and ranks[0] >= 2) or (span <= 4 and high >= 2))


def keeps_bet2(cards: Sequence[Card]) -> bool:
    """Ride Bet 2 with a paying hand, four to a flush, or four to an open straight."""
    ranks = sorted(rank_of(c) for c in cards)
    counts = {r: ranks.count(r) for r in ranks}
    if any(n >= 2 and (r >= TEN or n >= 3) for r, n in counts.items()):
        return True
    if sum(n >= 2 for n in counts.values()) >= 2:
        return True
    if len({suit_of(c) for c in cards}) == 1:
        return True
    distinct = sorted(counts)
    return len(distinct) == 4 and distinct[-1] - distinct[0] == 3 and 0 < distinct[0] < 9


def _cards(text: str) -> list[Card]:
    return list(parse_cards(text.split()))


SIMULATOR: Final = LetItRide()
