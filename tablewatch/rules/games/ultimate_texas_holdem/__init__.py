"""Ultimate Texas Hold 'Em (58 Pa. Code ch. 653a): the game's descriptor.

Two cards to each seat and to the dealer and five community cards, all face
down; the flop (community cards 1-3) turned by ``reveal`` ``community`` 1,
the turn and river (4-5) by ``community`` 2, the dealer's by ``dealer``.
Each hand is the best five of seven. Ante and Blind (equal, required), Trips
and the progressive; one Play per seat, made by decision: 3x or 4x the Ante
before the flop, 2x after it, 1x after the river, else ``check`` (and at
last ``fold``). Pay tables: Ante and Play 1 to 1, Blind A or B, Trips A-D
(§ 653a.12(a)-(c), read: :mod:`~.paytables`); the progressive by the
casino's rows. Settlement: :mod:`~.settlement`; its own checks:
PLAY_WAGER_OUT_OF_RANGE (:mod:`~.play_wager_check`), UNEQUAL_BETS
(:mod:`~.blind_check`) and DECISION_MISSING.

Of ch. 653a only § 653a.12(a)-(c) (and the start of (d)(1)), part of
§ 653a.1 and part of § 653a.6 were read: every other section is cited by
number only, from the chapter's usual structure (that of ch. 641a).
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks import decision_missing
from tablewatch.rules.game_rules import (
    Configuration,
    ExactEdge,
    Exposure,
    GameCheck,
    GameRules,
    HoldWager,
    LetteredSlot,
    MonteCarloEdge,
    ProgressiveReset,
    RowSlot,
    Wager,
    sections_by_structure,
)
from tablewatch.rules.games.ultimate_texas_holdem import (
    ante_edge,
    blind_check,
    decision_values,
    play_wager_check,
    trips_edge,
    words,
)
from tablewatch.rules.games.ultimate_texas_holdem.paytables import (
    ANTE_PLAY_SECTION,
    BLIND,
    BLIND_SECTION,
    PROGRESSIVE_SECTION,
    TRIPS,
    TRIPS_SECTION,
)
from tablewatch.rules.games.ultimate_texas_holdem.settlement import (
    DEADLINE,
    settle_ultimate_texas_holdem,
)
from tablewatch.rules.paytables.rows import METER

NAME: Final = "ultimate_texas_holdem"
PROGRESSIVE_HANDS: Final = (
    "royal_flush",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
    "flush",
    "straight",
    "three_of_a_kind",
)
FLOP: Final = ("community", 1)

RULES: Final = GameRules(
    name=NAME,
    title="Ultimate Texas Hold 'Em",
    chapter="ch. 653a",
    wagers=(
        Wager("ante", None, ANTE_PLAY_SECTION, always=True),
        Wager("blind", "blind", BLIND_SECTION),
        Wager("play", None, ANTE_PLAY_SECTION, placed=False),  # a decision
        Wager("trips", "trips", TRIPS_SECTION),
        Wager("progressive", "progressive", PROGRESSIVE_SECTION),
    ),
    hand_cards=2,
    areas=(("dealer", 2, "the dealer"), ("community", 5, "the community area")),
    exposure=(
        Exposure("dealer", "a dealer card", face_up=0, revealed_by=("dealer", None)),
        Exposure(
            "community",
            "a community card",
            face_up=0,
            revealed_by=("community", 2),
            turned=((FLOP, 0), (FLOP, 1), (FLOP, 2)),  # the flop, turned before the rest
        ),
    ),
    configuration=Configuration(
        lettered={
            "blind": LetteredSlot(BLIND, BLIND_SECTION),
            "trips": LetteredSlot(TRIPS, TRIPS_SECTION),
        },
        required=("blind",),
        progressive_reset=ProgressiveReset("progressive", {}, PROGRESSIVE_SECTION),
        rows={"progressive": RowSlot(PROGRESSIVE_HANDS, PROGRESSIVE_SECTION, METER)},
    ),
    sections=sections_by_structure("653a"),  # no subsection of these was read
    settle=settle_ultimate_texas_holdem,
    checks=(
        GameCheck(play_wager_check.CODE, play_wager_check.check),
        GameCheck(blind_check.CODE, blind_check.check),
        GameCheck(decision_missing.CODE, decision_missing.check),
    ),
    decision_wagers={"play": "play"},
    decision_deadline=DEADLINE,
    edges={
        "trips": ExactEdge(TRIPS, trips_edge.edge),
        "ante": MonteCarloEdge(ante_edge.edge, BLIND),  # with the Blind's table, by letter
    },
    hold=(  # the Ante, Blind and Play per unit of Ante
        HoldWager("ante", ("ante", "blind", "play"), "ante"),
        HoldWager("trips", ("trips",), "trips"),
    ),
    words=words.WORDS,
    decision_values=decision_values.VALUES,
)
