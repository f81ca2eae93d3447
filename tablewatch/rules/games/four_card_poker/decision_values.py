"""Four Card Poker's one decision, fold or a Play of 1x, 2x or 3x the Ante: a stated Monte-Carlo.

In Antes (§ 641a.11(b), (c)(3), § 641a.12(a), (b); Aces Up and the progressive
do not depend on the decision): a fold loses the Ante (-1); a Play of ``r``
Antes wins or loses Ante and Play together at 1 to 1, a tie going to the
player, and earns the Ante bonus ``B`` of the player's hand whatever the
dealer holds: ``(1 + r)(2p - 1) + B`` with ``p`` the chance that the player's
best four equal or beat the dealer's best four of six (as :mod:`.ante_edge`).

What the player sees: his five cards and the dealer's sixth card, dealt face up
(§ 641a.8(d), § 641a.9(b)). "The dealer's first card" is the first of his five
face-down cards. The package states no strategy in words (:mod:`.ante_edge`
learns one per cell from simulated deals): the known strategy here is the
option of highest value with what the player sees, as estimated below (ties:
the first of fold, 1x, 2x, 3x); the value being linear in ``r``, 2x is never
strictly best.

A stated Monte-Carlo (exact would take the dealer's C(46,5) = 1,370,754 hidden
hands per decision): :data:`SHUFFLES` orderings of the 46 cards the player
does not see, drawn from a seed made of the cards he sees (so the same hand
and up card always get the same values), each cut into nine hands of five (the
46th card left over): 9 x 2,048 = 18,432 dealer hands, each uniform over the
C(46,5). ``p`` seen is their share the player beats or ties; with the dealer's
first card ``c`` known, the share among the hands holding ``c`` (given ``c``,
such a hand's other four are uniform over the rest: about 2,000 hands per
card, one per ordering that does not leave ``c`` over). With all his cards
known, the one outcome. The option best with the dealer's first card known and
the share of first cards for which an option is best are the same estimate's,
drawn independently of the dealer's cards, so the test across rounds
(``patterns/advantage_play.py``) keeps its false-alarm bound exactly.

A Play that is not a whole 1, 2 or 3 times the Ante (PLAY_WAGER_OUT_OF_RANGE,
or a fraction) is not valued.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

import numpy as np

from tablewatch.rules.cards import RANKS
from tablewatch.rules.edge.pricing import bonus_of_names
from tablewatch.rules.game_rules import DecisionValue, DecisionValues
from tablewatch.rules.games.four_card_poker.ante_and_bonus_paytable import ANTE_BONUS
from tablewatch.rules.hands import (
    Hand4,
    best4of5,
    best4of6,
    best4of6_batch,
    category_of,
    leading_rank,
)
from tablewatch.rules.paytables.hand_names import four_card_names
from tablewatch.rules.round_view import RoundView
from tablewatch.rules.table_config import TableConfig

OPTIONS: Final = ("fold", "1x", "2x", "3x")
MULTIPLES: Final = (0, 1, 2, 3)  # the Play in Antes of each option
POINT: Final = "play size"
FOLD: Final = -1.0
SHUFFLES: Final = 2048  # orderings of the 46 unseen cards, nine dealer hands each
STRATEGY: Final = (
    "the option of highest expected value with the player's five cards and the dealer's "
    "up card (fold, Play 1x or Play 3x), as the decision values estimate it"
)


@dataclass(frozen=True, slots=True)
class PlayChances:
    """The chance ``p`` that the player's best four equal or beat the dealer's: ``seen``
    (his cards and the up card), and ``by_first`` with each card as the dealer's first (52
    values, NaN for the six the player sees)."""

    seen: float
    by_first: tuple[float, ...]


@lru_cache(maxsize=1024)  # a hand seen again soon (the hole-carder, a test): 2 MB at most
def play_chances(hand: tuple[int, ...], up: int) -> PlayChances:
    """``p`` for the player's five cards (sorted) and the dealer's up card, estimated over
    :data:`SHUFFLES` orderings of the unseen cards (see the module's docstring; cached: the
    simulator's hole-carder and the test ask for the same ones)."""
    known = {*hand, up}
    unseen = np.array([c for c in range(52) if c not in known], dtype=np.int64)  # 46
    seed = sum(card << (6 * i) for i, card in enumerate((*hand, up)))
    orders = np.random.default_rng(seed).permuted(np.tile(unseen, (SHUFFLES, 1)), axis=1)
    hidden = orders[:, : 9 * 5].reshape(-1, 5)  # nine dealer hands of five per ordering
    rows = np.concatenate([hidden, np.full((len(hidden), 1), up, dtype=np.int64)], axis=1)
    dealer = best4of6_batch(rows)
    won = (dealer <= best4of5(hand)).astype(np.float64)  # the array first: a tie is his
    held = hidden.reshape(-1)
    wins = np.bincount(held, weights=np.repeat(won, 5), minlength=52)
    counts = np.bincount(held, minlength=52).astype(np.float64)
    by_first = np.full(52, np.nan)
    usable = unseen[counts[unseen] > 0]
    by_first[usable] = wins[usable] / counts[usable]
    return PlayChances(float(won.mean()), tuple(float(v) for v in by_first))


def bonus_net(cards: tuple[int, ...]) -> float:
    """The Ante bonus a Play earns on these five cards, per Ante (0: none)."""
    return float(bonus_of_names(ANTE_BONUS, four_card_names(best4of5(cards))))


def option_values(p: float, bonus: float) -> tuple[float, ...]:
    """Each option's value in Antes (:data:`OPTIONS`' order) for a chance ``p`` of winning."""
    edge = 2.0 * p - 1.0
    return tuple(FOLD if r == 0 else (1 + r) * edge + bonus for r in MULTIPLES)


def best_option(values: tuple[float, ...], strategy: str | None = None) -> str:
    """The option of highest value (a tie: ``strategy`` if it is among the best, else the
    first in :data:`OPTIONS`)."""
    top = max(values)
    tied = [option for option, value in zip(OPTIONS, values, strict=True) if value == top]
    return strategy if strategy in tied else tied[0]


def known_strategy(hand: tuple[int, ...], up: int) -> str:
    """The known strategy's option (:data:`STRATEGY`)."""
    key = tuple(sorted(hand))
    return best_option(option_values(play_chances(key, up).seen, bonus_net(key)))


def best_with_first(hand: tuple[int, ...], up: int, first: int) -> str:
    """The option best with the dealer's first card known too (a tie: the strategy's)."""
    key = tuple(sorted(hand))
    chances = play_chances(key, up)
    bonus = bonus_net(key)
    strategy = best_option(option_values(chances.seen, bonus))
    return best_option(option_values(chances.by_first[first], bonus), strategy)


def hand_class(strength: int) -> str:
    """The class players' own strategies are written in, of a hand whose best four have
    ``strength``: their category and the rank that names it ("pair (T)": a pair of tens;
    "high card (A)")."""
    name = Hand4(category_of(strength)).name.lower().replace("_", " ")
    return f"{name} ({RANKS[leading_rank(strength)]})"


def taken_option(action: str, amount: int | None, ante: int) -> str | None:
    """The option a decision took: fold, or a Play of a whole 1-3 Antes (else None)."""
    if action == "fold":
        return "fold"
    if action != "play" or amount is None or amount % ante:
        return None
    multiple = amount // ante
    return OPTIONS[multiple] if 1 <= multiple <= 3 else None


def value_decisions(view: RoundView, config: TableConfig) -> tuple[DecisionValue, ...]:
    """Every seat's fold or Play made before the dealer's reveal, valued (a round with a
    repeated card or a dealer hand not of six with the sixth face up, a seat not of five
    cards or whose Play is not a whole 1-3 Antes, is left out)."""
    dealer = view.cards.get("dealer", [])
    dealt = view.card_events.get("dealer", [])
    if len(dealer) != 6 or not view.no_repeated_card or not dealt[5].face_up:
        return ()
    if any(event.face_up for event in dealt[:5]):
        return ()
    up, first = dealer[5], dealer[0]
    reveal = view.reveals.get(("dealer", None))
    theirs = best4of6(dealer)
    out = []
    for seat in view.seats():
        hand = view.seat_cards(seat)
        ante = view.amount(seat, "ante")
        if len(hand) != 5 or not ante:
            continue
        decision = next(
            (d for d in view.decisions.get(seat, []) if d.action in ("play", "fold")), None
        )
        if decision is None or (reveal is not None and decision.seq > reveal.seq):
            continue
        taken = taken_option(decision.action, decision.amount, ante)
        if taken is None:
            continue
        key = tuple(sorted(hand))
        chances = play_chances(key, up)
        bonus = bonus_net(key)
        strategy = best_option(option_values(chances.seen, bonus))
        best = [
            best_option(option_values(p, bonus), strategy)
            for p in chances.by_first
            if not np.isnan(p)
        ]
        mine = best4of5(key)
        won = mine >= theirs
        out.append(
            DecisionValue(
                seat=seat,
                event_id=decision.event_id,
                point=POINT,
                options=OPTIONS,
                taken=taken,
                strategy=strategy,
                seen=option_values(chances.seen, bonus),
                first_card=option_values(chances.by_first[first], bonus),
                hidden=option_values(1.0 if won else 0.0, bonus),
                chance_best=tuple(best.count(option) / len(best) for option in OPTIONS),
                best_first=best_option(option_values(chances.by_first[first], bonus), strategy),
                hand_class=hand_class(mine),
            )
        )
    return tuple(out)


VALUES: Final = DecisionValues(
    strategy=STRATEGY,
    source="four_card_poker.decision_values",
    method=(
        f"Monte-Carlo: {SHUFFLES:,} orderings of the 46 unseen cards drawn from a seed of the "
        f"cards the player sees, nine dealer hands each ({9 * SHUFFLES:,}); with his first "
        "card, the hands holding it; with all his cards the one outcome"
    ),
    value=value_decisions,
)
