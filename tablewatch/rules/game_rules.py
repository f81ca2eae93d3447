"""What a game is to the rules engine: the parts of a game descriptor.

Each game has one descriptor module in :mod:`tablewatch.rules.games` whose
``RULES`` is a :class:`GameRules`: its name, its wagers and the pay-table
slots that price them, what a table's configuration of it requires and
allows, how many cards a hand holds and which areas are dealt, the
regulation section each check common to all games cites for it, its
settlement and its own checks. The configuration, the judge, the checks, the
house-edge command and the simulator know a game only through it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tablewatch.rules.checks.catalog import Check
from tablewatch.rules.paytables.table import PayTable

if TYPE_CHECKING:  # only in the types of callables (kept out of the import cycle)
    from tablewatch.rules.checks.context import RoundContext
    from tablewatch.rules.edge.result import EdgeResult
    from tablewatch.rules.findings import Finding
    from tablewatch.rules.round_view import RoundView
    from tablewatch.rules.settlement.expected import Settlement
    from tablewatch.rules.table_config import TableConfig

Area = tuple[str, int, str]  # (card target, cards it is dealt, its name in a finding)
RevealKey = tuple[str, int | None]  # a reveal's (target, index), as RoundView.reveals keys it


@dataclass(frozen=True, slots=True)
class Wager:
    """A bet of the game's layout: the protocol's bet name and what prices it."""

    bet: str
    slot: str | None  # the configuration's pay-table key that prices it (None: fixed odds)
    section: str  # the section that states its odds
    always: bool = False  # offered at every table of the game, with no pay table to choose
    placed: bool = True  # False: never a `wager` event (made by decision, or paid by the house)


@dataclass(frozen=True, slots=True)
class LetteredSlot:
    """A pay-table slot the casino fills with one of the regulation's tables, by letter."""

    tables: Mapping[str, PayTable]
    section: str


@dataclass(frozen=True, slots=True)
class RowSlot:
    """A pay-table slot the casino states by its rows, highest hand first: ``{rows: [...]}``.

    ``hands``: the hand each row pays, in order. ``payout``: ``"to 1"`` (each
    row the X of "X to 1", a whole number of at least 1), ``"meter"`` (each row
    "X for 1" or "P% of meter", or 0 for a hand not paid: a progressive) or
    ``"envy"`` (each row "$N" per $1 of the progressive wager, or 0: its Envy
    Bonus, cents per $1 by hand, not a pay table). Parsed by
    :func:`tablewatch.rules.paytables.rows.table_of_rows`.
    """

    hands: tuple[str, ...]
    section: str
    payout: str = "to 1"


@dataclass(frozen=True, slots=True)
class EnvyChoice:
    """An Envy Bonus table the casino chooses by letter: cents per $1 by qualifying hand."""

    slot: str
    tables: Mapping[str, Mapping[str, int]]
    section: str
    required_with: str  # the slot whose wager receives it: offering one requires the other


@dataclass(frozen=True, slots=True)
class FixedEnvy:
    """An Envy Bonus the regulation fixes (cents per $1), due wherever ``with_slot`` is
    offered."""

    with_slot: str
    per_dollar: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class ProgressiveReset:
    """The progressive's initial and reset amount: at least ``minimum`` (cents) by the letter
    of the pay table in ``slot``."""

    slot: str
    minimum: Mapping[str, int]
    section: str


@dataclass(frozen=True, slots=True)
class PayoutLimitRule:
    """A payout limit per hand: at least ``minimum`` cents, capping ``bets`` together; a
    finding on a capped hand names ``bet``."""

    minimum: int
    section: str
    bets: tuple[str, ...]
    bet: str


@dataclass(frozen=True, slots=True)
class Configuration:
    """What a table's configuration of the game may and must say.

    ``lettered``: slots filled by letter; ``required``: slots every table
    fills; ``casino_supplied``: slots whose pay table the casino writes (slot
    -> section), ``casino_envy`` the slot of an Envy Bonus it writes
    (``casino_envy_section`` its section);
    ``rows``: slots the casino states by rows (:class:`RowSlot`).
    """

    lettered: Mapping[str, LetteredSlot]
    required: tuple[str, ...]
    progressive_reset: ProgressiveReset
    envy: EnvyChoice | None = None
    fixed_envy: FixedEnvy | None = None
    casino_supplied: Mapping[str, str] = field(default_factory=dict)
    casino_envy: str | None = None
    casino_envy_section: str = ""
    payout_limit: PayoutLimitRule | None = None
    rows: Mapping[str, RowSlot] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Sections:
    """The section each check common to all games cites at this game.

    A mapping by dealing (``hand``, ``manual_shoe``, ``automated_shoe``)
    where the procedure differs; ``hand``'s is cited for a dealing it lacks.
    """

    lockout: str  # BET_AFTER_LOCKOUT
    one_deck: str  # DUPLICATE_CARD
    deck_change: str  # DECK_CHANGE_OVERDUE, before its paragraph
    shuffler_count: str  # SHUFFLER_COUNT_MISMATCH
    wagers_offered: str  # WAGER_NOT_OFFERED
    settlement: str  # UNSETTLED_WAGER, and a wager paid that was never placed
    envy: str  # ENVY_BONUS_WRONG for a bonus no hand earns
    round_end: str  # ROUND_INCOMPLETE, after the protocol's round_end
    void: str  # VOID_NOT_RETURNED with no cause found
    misdeal: str  # ROUND_NOT_VOIDED: a hand or area dealt the wrong number of cards
    early_exposure: str  # ROUND_NOT_VOIDED: a hidden card exposed before its reveal
    face_up_in_deck: str  # ROUND_NOT_VOIDED: two or more cards face up in the deck
    shoe_fault: str  # ROUND_NOT_VOIDED: the automated shoe faulted
    progressive_count: Mapping[str, str]  # PROGRESSIVE_COUNT_MISMATCH, by dealing
    stub_count: Mapping[str, str]  # STUB_COUNT_MISMATCH, by dealing
    stub_cadence: Mapping[str, str]  # STUB_COUNT_MISSING, by dealing


def sections_by_structure(chapter: str) -> Sections:
    """The sections of a chapter whose text was not read (``chapter``: its number), by
    section number only, from the structure the chapters whose text was read share: .3
    cards and decks, .5 the shuffler, .7 wagers and the lockout, .8 a manual shoe, .9
    dealing by hand, .10 an automated shoe, .11 procedure and settlement, .12 payout
    odds, .13 irregularities. Never a subsection: none of them was read."""

    def section(number: int) -> str:
        return f"§ {chapter}.{number}"

    by_dealing = {"manual_shoe": section(8), "hand": section(9), "automated_shoe": section(10)}
    return Sections(
        lockout=section(7),
        one_deck=section(3),
        deck_change=section(3),
        shuffler_count=section(5),
        wagers_offered=section(7),
        settlement=section(11),
        envy=section(12),
        round_end=section(11),
        void=section(13),
        misdeal=section(13),
        early_exposure=section(13),
        face_up_in_deck=section(13),
        shoe_fault=section(13),
        progressive_count=by_dealing,
        stub_count=by_dealing,
        stub_cadence=by_dealing,
    )


def dealing_section(by_dealing: Mapping[str, str], dealing: str) -> str:
    """``by_dealing``'s section for ``dealing``; the hand-dealing one for a dealing it lacks."""
    return by_dealing.get(dealing, by_dealing["hand"])


@dataclass(frozen=True, slots=True)
class Exposure:
    """The cards dealt face down until one reveal shows them (the dealer's, the community's).

    ``face_up``: how many of them the rules deal face up (the last ones);
    ``turned``: earlier reveals that each turn one card, by its position in
    the target's cards (such a card seen after its reveal is no exposure); a
    reveal that turns several cards (a flop) is listed once for each.
    """

    target: str
    name: str  # "a dealer card"
    face_up: int
    revealed_by: RevealKey
    turned: tuple[tuple[RevealKey, int], ...] = ()


@dataclass(frozen=True, slots=True)
class GameCheck:
    """A check only this game has, run on every round; ``entry``: its catalog entry when the
    catalog (``checks/catalog.py``) does not list its code."""

    code: str
    run: Callable[[RoundContext], list[Finding]]
    entry: Check | None = None


@dataclass(frozen=True, slots=True)
class HouseBonus:
    """A bonus the house pays on another wager's stake when the hand qualifies, with no
    wager of its own: settled on a line of its own only when won, so a winning line missing
    at the round's end is an unpaid one (WRONG_PAYOUT). ``title`` and ``on`` name it and
    that wager in the finding ("an Ante bonus of $20.00 (2 to 1 on the $10.00 Ante)")."""

    bet: str
    title: str  # with its article: "an Ante bonus"
    on: str  # the wager whose stake it pays on: "Ante"


@dataclass(frozen=True, slots=True)
class DecisionDeadline:
    """When a seat's decision is due (DECISION_MISSING, ``checks/decision_missing.py``).

    A seat with a live ``wager`` must make one of the ``closing`` decision
    actions before the ``reveal`` (``reveal_name``: "the dealer's cards were
    turned"); one that did not is settled as after a fold.
    """

    wager: str
    closing: tuple[str, ...]
    reveal: RevealKey
    reveal_name: str
    section: str

    def wagered_by(self, view: RoundView, seat: int) -> tuple[int, int]:
        """The amount of the seat's first closing decision, when made before the reveal (0:
        a fold, or none: DECISION_MISSING), and that of one made after it (0: none)."""
        reveal = view.reveals.get(self.reveal)
        for decision in view.decisions.get(seat, []):
            if decision.action not in self.closing:
                continue  # one that closes nothing (a check: a later street decides)
            amount = decision.amount or 0
            if reveal is not None and decision.seq > reveal.seq:
                return 0, amount
            return amount, 0
        return 0, 0


@dataclass(frozen=True, slots=True)
class ExactEdge:
    """A wager whose house edge is an exact enumeration: ``compute(game, letter)``."""

    tables: Mapping[str, PayTable]
    compute: Callable[[str, str], EdgeResult]


@dataclass(frozen=True, slots=True)
class MonteCarloEdge:
    """A wager whose house edge is a Monte-Carlo of a learned or stated play:
    ``compute(game, samples=, train_samples=, seed=, granularity=, progress=)``, the first
    three only when asked for (else its own defaults); with ``tables``, also ``letter=``,
    the pay table of another wager settled with it, chosen by letter."""

    compute: Callable[..., EdgeResult]
    tables: Mapping[str, PayTable] | None = None


@dataclass(frozen=True, slots=True)
class RowsEdge:
    """A wager whose house edge is exact for a pay table stated by rows (the configuration's
    slot ``slot``, of ``rows``): ``compute(game, table, progress)``, ``progress(phase, done,
    total)`` or None."""

    slot: str
    rows: RowSlot
    compute: Callable[[str, PayTable, Callable[[str, int, int], None] | None], EdgeResult]


WagerEdge = ExactEdge | MonteCarloEdge | RowsEdge


@dataclass(frozen=True, slots=True)
class HoldWager:
    """A priced wager as the hold rollups count it (the store's ``hold_lines``).

    ``wager``: its name, as ``edges`` and the pay-table slots name it; ``bets``:
    the settle lines whose house win it sums; ``unit``: the bet whose stake is one
    unit (a hand counts where that line was settled and not returned); ``kept``:
    the bets whose odds are "for 1" (a win keeps the stake: house win stake - paid).
    """

    wager: str
    bets: tuple[str, ...]
    unit: str
    kept: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SeatWords:
    """A seat's hands in words, for a reader of the round (``None``: no rank, a misdeal).

    ``hand``: the hand its main wagers are priced on, made of ``hand_cards``;
    ``three_card_hand``: its own three cards, where a wager prices them apart;
    ``six_card_hand``: the best five of its cards and a shared area of three, where a
    wager prices them."""

    hand: str | None
    hand_cards: tuple[str, ...] = ()
    three_card_hand: str | None = None
    six_card_hand: str | None = None


@dataclass(frozen=True, slots=True)
class HandWords:
    """How the game names its hands: ``seat(cards, areas)`` a seat's (its cards as dealt,
    the shared areas' cards by target: "dealer", "community", ...), ``dealer(cards,
    areas)`` the dealer's (``None``: no rank)."""

    seat: Callable[[Sequence[str], Mapping[str, Sequence[str]]], SeatWords]
    dealer: Callable[[Sequence[str], Mapping[str, Sequence[str]]], str | None]


@dataclass(frozen=True, slots=True)
class DecisionValue:
    """One decision a seat made, valued in units of its main stake (the Ante, the bet).

    ``options``: what the seat could do at that point (``taken`` one of them,
    ``strategy`` the game's known strategy's choice). Per option, in ``options``'
    order: ``seen`` its expected value with what the player could see (his cards,
    the community cards turned), ``first_card`` with the dealer's first card known
    too (a hole-carder's view), ``hidden`` with every hidden card known (the dealer's
    cards, the community cards to come); ``chance_best`` the share of the dealer's
    possible first cards (given what the player saw) for which that option is the
    best one (ties go to the strategy's). ``best_first``: the option best with the
    dealer's actual first card known. ``event_id``: the decision's event.
    ``hand_class``: the class of what the player saw in which players' own strategies are
    written (e.g. "pair (T)"), where the game states one: the advantage test learns each
    player's own strategy by it (empty: by the known strategy's option).
    """

    seat: int
    event_id: str
    point: str  # when the decision is made: "play or fold", "after the river", ...
    options: tuple[str, ...]
    taken: str
    strategy: str
    seen: tuple[float, ...]
    first_card: tuple[float, ...]
    hidden: tuple[float, ...]
    chance_best: tuple[float, ...]
    best_first: str
    hand_class: str = ""


@dataclass(frozen=True, slots=True)
class DecisionValues:
    """How a game values its players' decisions (``value(view, config)``: every decision of
    a round's seats, in seat order), against which known strategy (``strategy``, in
    words, as ``source`` states it) and how exactly (``method``)."""

    strategy: str
    source: str  # the module of the game package whose strategy it is
    method: str  # "exact over ..." or a stated Monte-Carlo
    value: Callable[[RoundView, TableConfig], tuple[DecisionValue, ...]]


NO_DECISION_WAGERS: dict[str, str] = {}
NO_EDGES: dict[str, WagerEdge] = {}


class GameRules:
    """One game, as every part of the service reads it (see the module's docstring).

    ``settle(view, config)``: what every wager of a round is owed.
    ``checks``: the game's own round checks, run on every round after the
    wagering and dealing checks. ``decision_wagers``: decision action -> the
    bet it places (a wager made by decision needs a settle line).
    ``decision_bets``: the bets a decision names (its ``bet``: a pull or a ride).
    ``withdrawn(view, seat)``: the bets the seat withdrew by decision, bet ->
    the decision's event_id (they need no settle line). ``envy_wagers``: the
    wagers that receive Envy Bonuses, in the order their events are cited;
    ``envy_unearned``: whose hand, besides the player's own, earns none (in
    ENVY_BONUS_WRONG's message). ``edges``: the wagers ``tablewatch edge``
    prices, by name. ``decision_deadline``: the decision a seat owes before a
    reveal (DECISION_MISSING), if any. ``house_bonuses``: the bonuses the house pays
    with no wager of their own (:class:`HouseBonus`). ``hold``: the wagers the hold rollups
    count (:class:`HoldWager`); ``words``: how its hands are named (:class:`HandWords`);
    ``decision_values``: how its players' decisions are valued (:class:`DecisionValues`).
    """

    def __init__(
        self,
        *,
        name: str,
        title: str,
        chapter: str,
        wagers: tuple[Wager, ...],
        hand_cards: int,
        areas: tuple[Area, ...],
        exposure: Exposure | tuple[Exposure, ...],
        configuration: Configuration,
        sections: Sections,
        settle: Callable[[RoundView, TableConfig], Settlement],
        checks: tuple[GameCheck, ...] = (),
        wager_areas: tuple[tuple[str, Area], ...] = (),
        decision_wagers: Mapping[str, str] = NO_DECISION_WAGERS,
        decision_bets: tuple[str, ...] = (),
        withdrawn: Callable[[RoundView, int], Mapping[str, str]] | None = None,
        envy_wagers: tuple[str, ...] = (),
        envy_unearned: str = "no",
        edges: Mapping[str, WagerEdge] = NO_EDGES,
        decision_deadline: DecisionDeadline | None = None,
        house_bonuses: tuple[HouseBonus, ...] = (),
        hold: tuple[HoldWager, ...] = (),
        words: HandWords | None = None,
        decision_values: DecisionValues | None = None,
    ) -> None:
        self.name = name  # as the protocol and the configuration write it
        self.title = title  # as people write it, capitalised
        self.chapter = chapter  # of 58 Pa. Code: "ch. N"
        self.wagers = wagers  # in the order of the layout
        self.hand_cards = hand_cards  # cards a player's hand is dealt
        self.areas = areas  # areas dealt a fixed number of cards in every round with a wager
        self.wager_areas = wager_areas  # (bet, area): dealt only when that bet is wagered
        # The areas dealt face down until their reveals: one, or several (a dealer and a
        # community area)
        self.exposures = exposure if isinstance(exposure, tuple) else (exposure,)
        self.configuration = configuration
        self.sections = sections
        self.settle = settle
        self.checks = checks
        self.decision_wagers = decision_wagers
        self.decision_bets = decision_bets
        self.withdrawn = withdrawn
        self.envy_wagers = envy_wagers
        self.envy_unearned = envy_unearned
        self.edges = edges
        self.decision_deadline = decision_deadline  # DECISION_MISSING's, if the game has one
        self.house_bonuses = house_bonuses
        self.house_bonus_of: dict[str, HouseBonus] = {b.bet: b for b in house_bonuses}
        self.hold = hold  # the priced wagers the hold rollups count
        self.words = words  # its hands in words (the round's reconstruction); None: unnamed
        # its players' decisions valued against the known strategy; None: not valued
        self.decision_values = decision_values
        # Derived once: read by the checks of every round.
        self.always_offered = frozenset(w.bet for w in wagers if w.always)
        self.never_wagered = frozenset(w.bet for w in wagers if not w.placed)
        limit = configuration.payout_limit
        self.limited_bets: tuple[str, ...] = limit.bets if limit is not None else ()

    def __repr__(self) -> str:
        return f"GameRules({self.name!r})"
