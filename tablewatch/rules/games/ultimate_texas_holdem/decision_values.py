"""Ultimate Texas Hold 'Em's last decision, Play 1x or fold after the river, valued exactly.

In Antes, Ante, Blind and Play together (§ 653a.12(a), (b); Trips does not
depend on the decision): a fold loses Ante and Blind (-2); a Play of 1x wins
1 + the Ante (1 when the dealer qualifies with a pair or better, else a push)
+ the Blind by its pay table (a push on a hand it does not pay) against a
lower dealer hand, loses 1 + the Ante (when he qualifies) + the Blind against a
higher one, and pushes on a tie (as :func:`.ante_edge.net_per_ante`).

Exact: with what the player sees (his two cards and the five community
cards), over the dealer's C(45,2) = 990 possible hands; with the dealer's
first card known, over the 44 second cards; with both known, the one outcome.
The known strategy is the one :mod:`.ante_edge` prices (:data:`STRATEGY`):
after the river, Play 1x with a pair or better in which a hole card takes
part, a straight or better that beats the board, or a jack or better in the
hole; else fold.

The flop's Play 2x or check is valued by a stated Monte-Carlo: over
:data:`FLOP_BOARDS` turn-and-river pairs drawn (without replacement, from a
seed made of the cards the player sees, so the same round always gets the same
values) from the C(47,2) = 1,081, each with every dealer hand of the cards left
(990); a check is worth the river's decision then made with what he would see
(with the dealer's first card known, on that too): E[max(Play 1x, fold)]. The
option best with the dealer's first card known and the share of first cards
for which an option is best are the same estimate's, so the test across
rounds (``patterns/advantage_play.py``) keeps its false-alarm bound exactly.

The raise before the flop (4x, 3x or check) is valued by a stated Monte-Carlo
too (:func:`preflop_values`): :data:`PREFLOP_FLOPS` flops drawn from the 50
cards the player does not see, each with :data:`PREFLOP_TURNS` turn-and-river
pairs of the 47 left (a seed made of his two cards), each board with every dealer
hand of the 45 cards left (990); a raise is worth its Play over those deals, a
check the flop's decision it leaves (the larger of 2x and a check, a check worth
the river's Play 1x or fold), each later decision made on what he would then
see (with the dealer's first card known, on that too). The values of two hole
cards depend only on their ranks and whether they are suited: they are estimated
once per such class (169) and Blind pay table (cached), the suits of a hand and
of the dealer's first card mapped onto the class's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Final

import numpy as np
import numpy.typing as npt

from tablewatch.rules.events import Decision
from tablewatch.rules.game_rules import DecisionValue, DecisionValues
from tablewatch.rules.games.ultimate_texas_holdem.ante_edge import (
    STRATEGY,
    blind_pricer,
    flop_2x,
    preflop_4x,
    river_1x,
)
from tablewatch.rules.hands import Hand5, best5of7_batch
from tablewatch.rules.hands.strength import CATEGORY_SHIFT
from tablewatch.rules.round_view import RoundView
from tablewatch.rules.table_config import TableConfig

OPTIONS: Final = ("play", "fold")
POINT: Final = "after the river"
FLOP_OPTIONS: Final = ("play", "check")
FLOP_POINT: Final = "on the flop"
FLOP_BOARDS: Final = 64  # turn-and-river pairs drawn of the 1,081
PREFLOP_OPTIONS: Final = ("4x", "3x", "check")
PREFLOP_POINT: Final = "before the flop"
PREFLOP_FLOPS: Final = 32  # flops drawn of the C(50,3) = 19,600
PREFLOP_TURNS: Final = 16  # turn-and-river pairs drawn of the 1,081 left by each
FOLD: Final = -2.0
SECOND_CARDS: Final = 44  # the dealer's second card, his first known: 52 - 7 - 1


def strategy_plays(hole: tuple[int, ...], board: tuple[int, ...]) -> bool:
    """The known strategy after the river (:data:`STRATEGY`)."""
    row = np.array([[hole[0], hole[1], 0, 0, *board]], dtype=np.int64)
    return bool(river_1x(row)[0])


def river_values(
    hole: tuple[int, ...], board: tuple[int, ...], letter: str
) -> tuple[float, npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """A Play of 1x after the river: its value seen, with each card as the dealer's first
    (52 values, NaN for the seven the player sees), and with each possible dealer hand
    (its value and its two cards, rows of the 990)."""
    seen_cards = {*hole, *board}
    unseen = [c for c in range(52) if c not in seen_cards]
    pairs = np.array(list(combinations(unseen, 2)), dtype=np.int64)
    dealer = best5of7_batch(np.concatenate([pairs, np.tile(board, (len(pairs), 1))], axis=1))
    mine_row = np.array([[*hole, *board]], dtype=np.int64)
    mine = best5of7_batch(mine_row)
    blind = float(blind_pricer(letter)(mine)[0])
    qualifies = ((dealer >> CATEGORY_SHIFT) >= Hand5.PAIR).astype(np.float64)
    net = np.where(
        mine[0] > dealer, 1.0 + qualifies + blind, np.where(mine[0] < dealer, -2.0 - qualifies, 0.0)
    )
    by_first = np.full(52, np.nan)
    sums = np.zeros(52)
    np.add.at(sums, pairs[:, 0], net)
    np.add.at(sums, pairs[:, 1], net)
    by_first[unseen] = sums[unseen] / SECOND_CARDS
    return float(net.mean()), by_first, net, pairs


def flop_strategy_plays(hole: tuple[int, ...], flop: tuple[int, ...]) -> bool:
    """The known strategy on the flop (:data:`STRATEGY`)."""
    row = np.array([[hole[0], hole[1], 0, 0, *flop, 0, 0]], dtype=np.int64)
    return bool(flop_2x(row)[0])


def _net(
    mine: npt.NDArray[np.int32],
    dealer: npt.NDArray[np.int32],
    blind: npt.NDArray[np.float64],
    multiple: float,
) -> npt.NDArray[np.float64]:
    """Ante, Blind and a Play of ``multiple``, per Ante, of each (seat, dealer) strength."""
    qualifies = ((dealer >> CATEGORY_SHIFT) >= Hand5.PAIR).astype(np.float64)
    out: npt.NDArray[np.float64] = np.where(
        mine > dealer,
        multiple + qualifies + blind,
        np.where(mine < dealer, -(multiple + qualifies + 1.0), 0.0),
    )
    return out


@dataclass(frozen=True, slots=True)
class FlopValues:
    """The flop's options estimated over the boards drawn (see the module's docstring):
    ``seen`` (2x, check); per card as the dealer's first (52, NaN for the player's five),
    ``play_first`` and ``check_first``; ``boards``: the (turn, river) pairs drawn."""

    seen: tuple[float, float]
    play_first: npt.NDArray[np.float64]
    check_first: npt.NDArray[np.float64]
    boards: npt.NDArray[np.int64]


@lru_cache(maxsize=4096)
def flop_values(hole: tuple[int, ...], flop: tuple[int, ...], letter: str) -> FlopValues:
    """Play 2x and check on the flop, estimated over :data:`FLOP_BOARDS` boards drawn
    (cached: the simulator's hole-carder and the test ask for the same ones)."""
    known = (*hole, *flop)
    unseen = np.array([c for c in range(52) if c not in known], dtype=np.int64)
    pairs = np.array(list(combinations(unseen.tolist(), 2)), dtype=np.int64)  # 1,081
    seed = sum(card << (6 * i) for i, card in enumerate(sorted(hole) + sorted(flop)))
    boards = pairs[np.random.default_rng(seed).choice(len(pairs), FLOP_BOARDS, replace=False)]
    # every (board, dealer hand) at once: the dealer's hands are the pairs sharing no card
    # with the board's turn and river
    turn, river = boards[:, 0:1], boards[:, 1:2]
    valid = (pairs[None, :, 0] != turn) & (pairs[None, :, 0] != river)
    valid &= (pairs[None, :, 1] != turn) & (pairs[None, :, 1] != river)
    flop_row = np.array(flop, dtype=np.int64)
    board_rows = np.concatenate([np.tile(flop_row, (FLOP_BOARDS, 1)), boards], axis=1)
    board_of, pair_of = np.nonzero(valid)  # 990 per board
    dealer = best5of7_batch(np.concatenate([pairs[pair_of], board_rows[board_of]], axis=1))
    hole_rows = np.tile(np.array(hole, dtype=np.int64), (FLOP_BOARDS, 1))
    mine = best5of7_batch(np.concatenate([hole_rows, board_rows], axis=1))
    blind = blind_pricer(letter)(mine)
    play = _net(mine[board_of], dealer, blind[board_of], 2.0)
    river_play = _net(mine[board_of], dealer, blind[board_of], 1.0)
    per_board = len(pairs) - 2 * (len(unseen) - 1) + 1  # 990: the pairs left by two cards
    play_by = np.zeros((FLOP_BOARDS, len(pairs)))
    river_by = np.zeros((FLOP_BOARDS, len(pairs)))
    play_by[board_of, pair_of] = play
    river_by[board_of, pair_of] = river_play
    holding = np.zeros((len(pairs), 52))
    holding[np.arange(len(pairs)), pairs[:, 0]] = 1.0
    holding[np.arange(len(pairs)), pairs[:, 1]] = 1.0
    play_sums = play_by @ holding  # (boards, 52): by the card the dealer holds
    river_sums = river_by @ holding
    play_seen = float(play_by.sum()) / (FLOP_BOARDS * per_board)
    check_seen = float(np.maximum(river_by.sum(axis=1) / per_board, FOLD).mean())
    # a card on board k cannot be the dealer's first there: averaged over the other boards
    on_board = np.zeros((FLOP_BOARDS, 52), dtype=bool)
    on_board[np.arange(FLOP_BOARDS), boards[:, 0]] = True
    on_board[np.arange(FLOP_BOARDS), boards[:, 1]] = True
    usable = np.maximum((~on_board).sum(axis=0), 1)
    play_first = np.full(52, np.nan)
    check_first = np.full(52, np.nan)
    seconds = SECOND_CARDS  # the dealer's second card, his first known: 44 of the rest
    play_mean = np.where(on_board, 0.0, play_sums / seconds).sum(axis=0) / usable
    check_mean = np.where(on_board, 0.0, np.maximum(river_sums / seconds, FOLD)).sum(axis=0)
    play_first[unseen] = play_mean[unseen]
    check_first[unseen] = (check_mean / usable)[unseen]
    return FlopValues((play_seen, check_seen), play_first, check_first, boards)


def flop_best_with_first(values: FlopValues, first: int, plays: bool) -> str:
    """The flop's option best with the dealer's first card known (a tie: the strategy's)."""
    play, check = float(values.play_first[first]), float(values.check_first[first])
    if play == check:
        return "play" if plays else "check"
    return "play" if play > check else "check"


def best_with_first(by_first: npt.NDArray[np.float64], first: int, plays: bool) -> str:
    """The option best with the dealer's first card known (a tie: the strategy's)."""
    value = float(by_first[first])
    if value == FOLD:
        return "play" if plays else "fold"
    return "play" if value > FOLD else "fold"


@dataclass(frozen=True, slots=True)
class PreflopValues:
    """The raise before the flop estimated (see the module's docstring), in
    :data:`PREFLOP_OPTIONS`' order: ``seen``; ``by_first`` per card as the dealer's first
    (52 rows of 3, NaN for the player's two), for the hole cards of the class's suits."""

    seen: tuple[float, float, float]
    by_first: npt.NDArray[np.float64]


def suit_map(hole: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The suits of ``hole`` (sorted) mapped onto its class's: the first card's suit 0, the
    second's 1 unless the same, the others next in their order."""
    order: list[int] = []
    for suit in (hole[0] & 3, hole[1] & 3, 0, 1, 2, 3):
        if suit not in order:
            order.append(suit)
    mapped = [0, 0, 0, 0]
    for new, old in enumerate(order):
        mapped[old] = new
    return (mapped[0], mapped[1], mapped[2], mapped[3])


def _mapped(card: int, suits: tuple[int, int, int, int]) -> int:
    return (card & ~3) | suits[card & 3]


def preflop_values(hole: tuple[int, ...], letter: str) -> PreflopValues:
    """4x, 3x and check before the flop for the seat's two cards (any order), with each card
    as the dealer's first in the hand's own suits."""
    ordered = tuple(sorted(hole))
    suits = suit_map(ordered)
    key = (_mapped(ordered[0], suits), _mapped(ordered[1], suits))
    values = _class_preflop_values((min(key), max(key)), letter)
    by_first = np.full((52, 3), np.nan)
    for card in range(52):
        if card not in ordered:
            by_first[card] = values.by_first[_mapped(card, suits)]
    return PreflopValues(values.seen, by_first)


def _check_by_flop(
    sign_of: npt.NDArray[np.float64],
    rest_of: npt.NDArray[np.float64],
    use: npt.NDArray[np.bool_],
) -> npt.NDArray[np.float64]:
    """A check's value per flop: the larger of 2x and the river's Play 1x or fold, over
    the flop's boards ``use`` allows (NaN where none)."""
    shape = (PREFLOP_FLOPS, PREFLOP_TURNS, -1)
    weight = use.reshape(shape).astype(np.float64)
    boards_used = weight.sum(axis=1)
    play = ((2.0 * sign_of + rest_of).reshape(shape) * weight).sum(axis=1)
    river = (np.maximum(sign_of + rest_of, FOLD).reshape(shape) * weight).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        best: npt.NDArray[np.float64] = np.maximum(play, river) / boards_used
    return best


@lru_cache(maxsize=512)
def _class_preflop_values(hole: tuple[int, int], letter: str) -> PreflopValues:
    """:func:`preflop_values` of a class's own cards (cached: 169 classes a pay table)."""
    unseen = np.array([c for c in range(52) if c not in hole], dtype=np.int64)  # 50
    rng = np.random.default_rng(hole[0] << 6 | hole[1])
    flops = np.array(
        [rng.choice(unseen, 3, replace=False) for _ in range(PREFLOP_FLOPS)], dtype=np.int64
    )
    boards = np.empty((PREFLOP_FLOPS, PREFLOP_TURNS, 5), dtype=np.int64)
    for f, flop in enumerate(flops):
        rest = np.setdiff1d(unseen, flop)
        pairs = np.array(list(combinations(rest.tolist(), 2)), dtype=np.int64)
        chosen = pairs[rng.choice(len(pairs), PREFLOP_TURNS, replace=False)]
        boards[f, :, :3] = flop
        boards[f, :, 3:] = chosen
    deals = boards.reshape(-1, 5)
    count = len(deals)
    pairs = np.array(list(combinations(unseen.tolist(), 2)), dtype=np.int64)  # 1,225
    valid = np.ones((count, len(pairs)), dtype=bool)
    for column in range(5):
        on = deals[:, column : column + 1]
        valid &= (pairs[None, :, 0] != on) & (pairs[None, :, 1] != on)
    board_of, pair_of = np.nonzero(valid)  # 990 per board
    dealer = best5of7_batch(np.concatenate([pairs[pair_of], deals[board_of]], axis=1))
    mine = best5of7_batch(
        np.concatenate([np.tile(np.array(hole, dtype=np.int64), (count, 1)), deals], axis=1)
    )
    blind = blind_pricer(letter)(mine)
    # per deal: the Play's sign and the rest (Ante and Blind): a Play of m nets m * sign + rest
    sign = np.zeros((count, len(pairs)))
    rest = np.zeros((count, len(pairs)))
    won, lost = mine[board_of] > dealer, mine[board_of] < dealer
    qualifies = ((dealer >> CATEGORY_SHIFT) >= Hand5.PAIR).astype(np.float64)
    sign[board_of, pair_of] = np.where(won, 1.0, np.where(lost, -1.0, 0.0))
    rest[board_of, pair_of] = np.where(
        won, qualifies + blind[board_of], np.where(lost, -(qualifies + 1.0), 0.0)
    )
    per_board = float(valid[0].sum())  # 990
    holding = np.zeros((len(pairs), 52))
    holding[np.arange(len(pairs)), pairs[:, 0]] = 1.0
    holding[np.arange(len(pairs)), pairs[:, 1]] = 1.0
    # seen: each board's means over the dealer's 990 hands
    sign_seen = sign.sum(axis=1) / per_board
    rest_seen = rest.sum(axis=1) / per_board
    # the dealer's first card known: over the 44 second cards (boards holding it: none)
    sign_first = sign @ holding / SECOND_CARDS
    rest_first = rest @ holding / SECOND_CARDS
    on_board = np.zeros((count, 52), dtype=bool)
    for column in range(5):
        on_board[np.arange(count), deals[:, column]] = True
    usable = ~on_board
    flop_seen = _check_by_flop(
        sign_seen[:, None], rest_seen[:, None], np.ones((count, 1), dtype=bool)
    )
    seen = (
        float((4.0 * sign_seen + rest_seen).mean()),
        float((3.0 * sign_seen + rest_seen).mean()),
        float(flop_seen.mean()),
    )
    flop_first = _check_by_flop(sign_first, rest_first, usable)  # NaN: the flop holds it
    boards_used = usable.sum(axis=0)
    by_first = np.full((52, 3), np.nan)
    for multiple, column in ((4.0, 0), (3.0, 1)):
        total = ((multiple * sign_first + rest_first) * usable).sum(axis=0)
        by_first[unseen, column] = total[unseen] / boards_used[unseen]
    by_first[unseen, 2] = np.nanmean(flop_first[:, unseen], axis=0)
    return PreflopValues(seen, by_first)


def preflop_strategy(hole: tuple[int, ...]) -> str:
    """The known strategy before the flop (:data:`STRATEGY`): 4x or check."""
    first, second = hole[0] >> 2, hole[1] >> 2
    raises = preflop_4x(
        np.array([max(first, second)]),
        np.array([min(first, second)]),
        np.array([(hole[0] & 3) == (hole[1] & 3)]),
    )
    return "4x" if bool(raises[0]) else "check"


def preflop_best(values: npt.NDArray[np.float64], strategy: str) -> str:
    """The option of highest value of one row (a tie: the strategy's if among the best,
    else the first of :data:`PREFLOP_OPTIONS`)."""
    top = float(values.max())
    tied = [o for o, v in zip(PREFLOP_OPTIONS, values.tolist(), strict=True) if v == top]
    return strategy if strategy in tied else tied[0]


def preflop_taken(decision: Decision, ante: int) -> str | None:
    """The option a decision before the flop took: a check, a Play of 4 or 3 Antes (else
    None)."""
    if decision.action == "check":
        return "check"
    if decision.action != "play" or decision.amount is None:
        return None
    if decision.amount == 4 * ante:
        return "4x"
    return "3x" if decision.amount == 3 * ante else None


def _preflop_value(
    seat: int,
    decision: Decision,
    taken: str,
    hole: tuple[int, int],
    board: tuple[int, ...],
    dealer: list[int],
    letter: str,
) -> DecisionValue:
    """The seat's 4x, 3x or check before the flop, valued (see :func:`preflop_values`)."""
    values = preflop_values(hole, letter)
    strategy = preflop_strategy(hole)
    possible = [row for row in values.by_first if not np.isnan(row[0])]
    best = [preflop_best(row, strategy) for row in possible]
    final = best5of7_batch(np.array([[*hole, *board]], dtype=np.int64))
    theirs = best5of7_batch(np.array([[*dealer, *board]], dtype=np.int64))
    blind = blind_pricer(letter)(final)
    first = values.by_first[dealer[0]]
    return DecisionValue(
        seat=seat,
        event_id=decision.event_id,
        point=PREFLOP_POINT,
        options=PREFLOP_OPTIONS,
        taken=taken,
        strategy=strategy,
        seen=values.seen,
        first_card=(float(first[0]), float(first[1]), float(first[2])),
        hidden=(
            float(_net(final, theirs, blind, 4.0)[0]),
            float(_net(final, theirs, blind, 3.0)[0]),
            max(float(_net(final, theirs, blind, 2.0)[0]), FOLD),
        ),
        chance_best=tuple(best.count(option) / len(best) for option in PREFLOP_OPTIONS),
        best_first=preflop_best(first, strategy),
    )


def value_decisions(view: RoundView, config: TableConfig) -> tuple[DecisionValue, ...]:
    """Every seat's 4x, 3x or check before the flop, 2x or check on the flop and Play 1x or
    fold after the river (made before the dealer's reveal), valued (a Play before the flop
    of another size is not); a misdealt or repeated card leaves the round out."""
    dealer = view.cards.get("dealer", [])
    board = view.cards.get("community", [])
    river = view.reveals.get(("community", 2))
    letter = config.letter("blind")
    if len(dealer) != 2 or len(board) != 5 or not view.no_repeated_card or river is None:
        return ()
    if letter is None:
        return ()
    shown = view.reveals.get(("dealer", None))
    out = []
    for seat in view.seats():
        hole = view.seat_cards(seat)
        ante = view.amount(seat, "ante")
        if len(hole) != 2 or not ante:
            continue
        flop = view.reveals.get(("community", 1))
        first_move = next(iter(view.decisions.get(seat, [])), None)
        if (
            first_move is not None
            and flop is not None
            and first_move.seq < flop.seq
            and (shown is None or first_move.seq < shown.seq)
        ):
            taken = preflop_taken(first_move, ante)
            if taken is not None:
                out.append(
                    _preflop_value(
                        seat, first_move, taken, (hole[0], hole[1]), tuple(board), dealer, letter
                    )
                )
        decision = next(
            (d for d in view.decisions.get(seat, []) if d.action in ("play", "fold")), None
        )
        if decision is None or (shown is not None and decision.seq > shown.seq):
            continue  # never decided in time
        hole_cards = (hole[0], hole[1])
        board_cards = tuple(board)
        flop_decision: Decision | None
        if flop is not None and flop.seq < decision.seq < river.seq:
            if decision.action == "play":
                flop_decision = decision  # 2x on the flop
            else:
                continue
        else:
            flop_decision = next(
                (
                    d
                    for d in view.decisions.get(seat, [])
                    if d.action == "check" and flop is not None and flop.seq < d.seq < river.seq
                ),
                None,
            )
        if flop_decision is not None:
            out.append(_flop_value(seat, flop_decision, hole_cards, board_cards, dealer, letter))
            if flop_decision is decision:
                continue
        if decision.seq < river.seq:
            continue
        seen, by_first, net, pairs = river_values(hole_cards, board_cards, letter)
        plays = strategy_plays(hole_cards, board_cards)
        possible = by_first[~np.isnan(by_first)]
        play_best = int(((possible > FOLD) | ((possible == FOLD) & plays)).sum())
        chance = play_best / len(possible)
        actual = (pairs[:, 0] == min(dealer)) & (pairs[:, 1] == max(dealer))
        out.append(
            DecisionValue(
                seat=seat,
                event_id=decision.event_id,
                point=POINT,
                options=OPTIONS,
                taken=decision.action,
                strategy="play" if plays else "fold",
                seen=(seen, FOLD),
                first_card=(float(by_first[dealer[0]]), FOLD),
                hidden=(float(net[actual][0]), FOLD),
                chance_best=(chance, 1.0 - chance),
                best_first=best_with_first(by_first, dealer[0], plays),
            )
        )
    return tuple(out)


def _flop_value(
    seat: int,
    decision: Decision,
    hole: tuple[int, int],
    board: tuple[int, ...],
    dealer: list[int],
    letter: str,
) -> DecisionValue:
    """The seat's 2x or check on the flop, valued (see :func:`flop_values`)."""
    flop = board[:3]
    values = flop_values(hole, flop, letter)
    plays = flop_strategy_plays(hole, flop)
    possible = ~np.isnan(values.play_first)
    play = values.play_first[possible]
    check = values.check_first[possible]
    play_best = int(((play > check) | ((play == check) & plays)).sum())
    chance = play_best / int(possible.sum())
    final = best5of7_batch(np.array([[*hole, *board]], dtype=np.int64))
    theirs = best5of7_batch(np.array([[*dealer, *board]], dtype=np.int64))
    blind = blind_pricer(letter)(final)
    hidden_play = float(_net(final, theirs, blind, 2.0)[0])
    hidden_check = max(float(_net(final, theirs, blind, 1.0)[0]), FOLD)
    first = dealer[0]
    return DecisionValue(
        seat=seat,
        event_id=decision.event_id,
        point=FLOP_POINT,
        options=FLOP_OPTIONS,
        taken=decision.action,
        strategy="play" if plays else "check",
        seen=values.seen,
        first_card=(float(values.play_first[first]), float(values.check_first[first])),
        hidden=(hidden_play, hidden_check),
        chance_best=(chance, 1.0 - chance),
        best_first=flop_best_with_first(values, first, plays),
    )


VALUES: Final = DecisionValues(
    strategy=STRATEGY,
    source="ultimate_texas_holdem.ante_edge",
    method=(
        "after the river exact (the dealer's 990 hands; with his first card, the 44 second "
        "cards); on the flop a Monte-Carlo of 64 turn-and-river pairs drawn, each over the "
        "dealer's 990 hands; before the flop a Monte-Carlo of 32 flops drawn, 16 turn-and-"
        "river pairs each, each over the dealer's 990 hands, per class of two hole cards"
    ),
    value=value_decisions,
)
