"""Ultimate Texas Hold 'Em as the simulator plays it: Ante = Blind, Trips, and three streets.

Dealing: two cards to each seat in play and two to the dealer, one at a time
in turn, then five to the community, all face down (an automated shoe gives
each hand its two at once). Every seat wagers the Ante and an equal Blind;
many add Trips, some the progressive. Players follow a simple standard
strategy: Play 4x before the flop with a good hand (a pair, an ace, a good
king or queen, suited high cards), else check; 2x after the flop with a pair
or better of their own; 1x after the turn and river with a pair or better of
their own, else fold. Blind and Trips pay tables by letter (§ 653a.12(b),
(c)). An injected hole-carder who sees the dealer's first card takes, on each
street, the option best with it known (the game's decision values).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from tablewatch.rules.cards import ACE, KING, QUEEN, TEN, Card, parse_cards, rank_of, suit_of
from tablewatch.rules.game_rules import GameRules
from tablewatch.rules.games import rules_of
from tablewatch.rules.games.ultimate_texas_holdem.decision_values import (
    best_with_first,
    flop_best_with_first,
    flop_strategy_plays,
    flop_values,
    preflop_best,
    preflop_strategy,
    preflop_values,
    river_values,
    strategy_plays,
)
from tablewatch.sim.dealing import cards_of
from tablewatch.sim.games.simulated_game import Rigged, SimulatedGame

if TYPE_CHECKING:
    from tablewatch.sim.dealing import Deal, Wagers
    from tablewatch.sim.injections import RoundPlan
    from tablewatch.sim.players import Player
    from tablewatch.sim.table_state import SimTable

NAME: Final = "ultimate_texas_holdem"
# royal flush, straight flush, four of a kind, full house, flush, straight, three of a kind
PROGRESSIVE: Final = [
    "100% of meter",
    "10% of meter",
    "300 for 1",
    "50 for 1",
    "40 for 1",
    "30 for 1",
    "9 for 1",
]
PREFLOP_MULTIPLES: Final = {"4x": 4, "3x": 3, "check": 0}
JACK: Final = ACE - 3
EIGHT: Final = TEN - 2
FIVE: Final = TEN - 5


class UltimateTexasHoldem(SimulatedGame):
    """Ultimate Texas Hold 'Em as played; ``rules``: its descriptor (the registry's by
    default; a test's toy game played the same way, with its ``prefix``)."""

    side_bets = ("trips",)
    hole_carding = True

    def __init__(self, rules: GameRules | None = None, prefix: str = "UTH") -> None:
        self.rules = rules or rules_of(NAME)
        self.prefix = prefix

    def floor_table(
        self, index: int, rng: random.Random, progressive: bool
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        paytables: dict[str, Any] = {"blind": rng.choice("AB"), "trips": rng.choice("ABCD")}
        table: dict[str, Any] = {"game": self.rules.name}
        if progressive:
            paytables["progressive"] = {"rows": list(PROGRESSIVE)}
            table["progressive_reset"] = rng.choice((100_000, 500_000))
        return table, paytables

    def seat_wagers(self, table: SimTable, seat: int, player: Player, wagers: Wagers) -> None:
        rng = table.rng
        offered = table.config.paytables
        wagers[(seat, "ante")] = wagers[(seat, "blind")] = player.unit
        if "trips" in offered and rng.random() < 0.3 + 0.6 * player.side_bet_rate:
            wagers[(seat, "trips")] = rng.choice((500, 1000, player.unit))
        if "progressive" in offered and rng.random() < player.progressive_rate:
            wagers[(seat, "progressive")] = player.progressive_chip

    def may_remove(self, wagers: Wagers, seat: int) -> bool:
        return (seat, "ante") in wagers

    def jackpot_hand(self, seats: dict[int, Player], seat: int, wagers: Wagers) -> Rigged:
        return {  # a royal flush of the seat's two and the flop: the meter
            f"seat:{seat}": _cards("As Ks"),
            "community": _cards("Qs Js Ts"),
        }

    def envy_hand(self, seats: dict[int, Player], holder: int, wagers: Wagers) -> Rigged:
        return {f"seat:{holder}": _cards("Ah Kh"), "community": _cards("Qh Jh Th")}

    def force_for_injection(
        self, table: SimTable, seats: dict[int, Player], wagers: Wagers, plan: RoundPlan
    ) -> None:
        inject = plan.inject
        if inject is None:
            return
        rng = table.rng
        if inject.code == "UNEQUAL_BETS":
            seat = rng.choice(sorted(seats))
            ante = wagers[(seat, "ante")]
            wagers[(seat, "blind")] = ante + rng.choice((-250, 500, 1000))
            table.record("UNEQUAL_BETS", seat)
        elif inject.code in ("PLAY_WAGER_OUT_OF_RANGE", "DECISION_MISSING"):
            inject.seat = rng.choice(sorted(seats))

    def deal_targets(
        self, dealing: str, seats: list[int], wagers: Wagers
    ) -> list[tuple[str, bool]]:
        places = [f"seat:{s}" for s in seats] + ["dealer"]
        if dealing == "automated_shoe":
            hands = [(place, False) for place in places for _ in range(2)]
        else:
            hands = [(place, False) for _ in range(2) for place in places]
        return hands + [("community", False)] * 5

    def rare_hand(self, rng: random.Random, seat: int) -> Rigged:
        """A royal flush (the meter), a straight flush or four of a kind with the board."""
        suit = rng.choice("shdc")
        kind = rng.random()
        ranks = "23456789TJQKA"
        if kind < 0.4:
            run = [f"{r}{suit}" for r in "AKQJT"]
        elif kind < 0.7:
            top = rng.randint(3, 11)
            run = [f"{ranks[top - i]}{suit}" for i in range(5)]
        else:
            rank = rng.choice(ranks)
            run = [rank + s for s in "hd"] + [rank + s for s in "cs"] + [f"{ranks[0]}{suit}"]
            if rank == ranks[0]:
                run[-1] = f"{ranks[1]}{suit}"
        return {f"seat:{seat}": _cards(" ".join(run[:2])), "community": _cards(" ".join(run[2:]))}

    def decide(self, table: SimTable, wagers: Wagers, dealt: list[Deal], plan: RoundPlan) -> None:
        """Before the flop, after it, after the turn and river: each seat that has not played
        plays or checks (plays or folds on the last street), then the dealer's cards are
        turned. An injected PLAY_WAGER_OUT_OF_RANGE checks before the flop and plays 3x
        after it; an injected DECISION_MISSING seat never decides."""
        rng = table.rng
        t = table.t
        inject = plan.inject
        code = plan.code
        wrong = inject.seat if inject is not None and code == "PLAY_WAGER_OUT_OF_RANGE" else None
        silent = inject.seat if inject is not None and code == "DECISION_MISSING" else None
        community = cards_of(dealt, "community")
        open_seats = [s for s in sorted({s for s, _ in wagers}) if wagers.get((s, "ante"))]
        if silent in open_seats:
            open_seats.remove(silent)
            table.record("DECISION_MISSING", silent)
        seeing = {seat for seat in open_seats if _sees(table, seat)}  # one look a round
        dealer = cards_of(dealt, "dealer")
        for street, (seen, multiples) in enumerate(((0, (4, 3)), (3, (2,)), (5, (1,)))):
            if street:
                t.reveal("community", street)
                table.pause(1_000, 4_000)
            for seat in list(open_seats):
                ante = wagers[(seat, "ante")]
                hole = cards_of(dealt, f"seat:{seat}")
                if seat == wrong and street == 1:
                    table.record("PLAY_WAGER_OUT_OF_RANGE", seat, "play")
                    t.decision(seat, "play", amount=3 * ante)
                    open_seats.remove(seat)
                elif seat == wrong and street == 0:
                    t.decision(seat, "check")
                elif street == 0 and seat in seeing:
                    multiple = PREFLOP_MULTIPLES[raises_seeing(table, hole, dealer)]
                    if multiple:
                        t.decision(seat, "play", amount=multiple * ante)
                        open_seats.remove(seat)
                    else:
                        t.decision(seat, "check")
                elif street == 1 and seat in seeing:
                    if plays_flop_seeing(table, hole, community, dealer):
                        t.decision(seat, "play", amount=2 * ante)
                        open_seats.remove(seat)
                    else:
                        t.decision(seat, "check")
                elif street == 2 and seat in seeing:
                    if plays_seeing(table, hole, community, dealer):
                        t.decision(seat, "play", amount=ante)
                        open_seats.remove(seat)
                    else:
                        t.decision(seat, "fold")
                elif _plays(street, hole, community[:seen]):
                    multiple = multiples[0] if rng.random() < 0.9 else multiples[-1]
                    t.decision(seat, "play", amount=multiple * ante)
                    open_seats.remove(seat)
                else:
                    t.decision(seat, "fold" if street == 2 else "check")
                table.pause(300, 2_500)
        t.reveal("dealer")


def _sees(table: SimTable, seat: int) -> bool:
    """Whether the table's hole-carder sits at ``seat`` and sees the dealer's first card."""
    carder = table.hole_carder
    return carder is not None and carder.seat == seat and carder.looks()


def raises_seeing(table: SimTable, hole: Sequence[Card], dealer: Sequence[Card]) -> str:
    """A hole-carder's 4x, 3x or check before the flop, the dealer's first card seen: the
    option best with it known, as the game's decision values estimate it (cards that are no
    hand raise 4x as :func:`raises_preflop` says)."""
    letter = table.config.letter("blind")
    if len(hole) != 2 or len({*hole}) != 2 or not dealer or dealer[0] in hole or letter is None:
        return "4x" if raises_preflop(hole) else "check"
    hole_cards = (hole[0], hole[1])
    values = preflop_values(hole_cards, letter)
    return preflop_best(values.by_first[dealer[0]], preflop_strategy(hole_cards))


def plays_seeing(
    table: SimTable, hole: Sequence[Card], board: Sequence[Card], dealer: Sequence[Card]
) -> bool:
    """A hole-carder's Play after the river, the dealer's first card seen: the option best
    with it known (cards that are no hand play as :func:`own_pair_or_better` says)."""
    letter = table.config.letter("blind")
    cards = {*hole, *board}
    if len(hole) != 2 or len(board) != 5 or len(cards) != 7 or not dealer or letter is None:
        return own_pair_or_better(hole, board)
    hole_cards, board_cards = (hole[0], hole[1]), tuple(board)
    _, by_first, _, _ = river_values(hole_cards, board_cards, letter)
    plays = strategy_plays(hole_cards, board_cards)
    return best_with_first(by_first, dealer[0], plays) == "play"


def plays_flop_seeing(
    table: SimTable, hole: Sequence[Card], board: Sequence[Card], dealer: Sequence[Card]
) -> bool:
    """A hole-carder's 2x on the flop, the dealer's first card seen: the option best with it
    known, as the game's decision values estimate it (cards that are no hand play as
    :func:`own_pair_or_better` says)."""
    letter = table.config.letter("blind")
    cards = {*hole, *board}
    if len(hole) != 2 or len(board) != 5 or len(cards) != 7 or not dealer or letter is None:
        return own_pair_or_better(hole, board[:3])
    hole_cards, flop = (hole[0], hole[1]), tuple(board[:3])
    values = flop_values(hole_cards, flop, letter)
    plays = flop_strategy_plays(hole_cards, flop)
    return flop_best_with_first(values, dealer[0], plays) == "play"


def _plays(street: int, hole: Sequence[Card], board: Sequence[Card]) -> bool:
    if street == 0:
        return raises_preflop(hole)
    return own_pair_or_better(hole, board)


def raises_preflop(hole: Sequence[Card]) -> bool:
    """4x with a pair (of threes or better), any ace, K-5+ (any king suited), Q-8+ (Q-6+
    suited), J-T suited."""
    if len(hole) != 2:
        return True
    high, low = sorted((rank_of(c) for c in hole), reverse=True)
    suited = suit_of(hole[0]) == suit_of(hole[1])
    if high == low:
        return high >= 1
    if high == ACE:
        return True
    if high == KING:
        return suited or low >= FIVE
    if high == QUEEN:
        return low >= (EIGHT - 2 if suited else EIGHT)
    return high == JACK and low == TEN and suited


def own_pair_or_better(hole: Sequence[Card], board: Sequence[Card]) -> bool:
    """A pair or better that uses a card of the seat's own (a pair on the board alone is not
    one), or a flush or straight with one."""
    ranks = [rank_of(c) for c in (*hole, *board)]
    if any(ranks.count(rank_of(c)) >= 2 for c in hole):
        return True
    suits = [suit_of(c) for c in (*hole, *board)]
    if any(suits.count(suit_of(c)) >= 5 for c in hole):
        return True
    present = set(ranks) | ({-1} if ACE in ranks else set())
    return any(
        all(r in present for r in range(low, low + 5))
        and any(low <= rank_of(c) <= low + 4 or (low == -1 and rank_of(c) == ACE) for c in hole)
        for low in range(-1, 9)
    )


def _cards(text: str) -> list[Card]:
    return list(parse_cards(text.split()))


SIMULATOR: Final = UltimateTexasHoldem()
