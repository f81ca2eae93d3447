"""Three Card Poker (58 Pa. Code ch. 649a): the game's descriptor.

Three cards to each seat and three to the dealer, all face down; three-card
ranks (straight flush, three of a kind, straight, flush, pair, high card).
Ante and Play at 1 to 1 (the dealer qualifies with queen high), the Ante
bonus, Pair Plus, the Six Card Bonus and the progressive with its Envy
Bonus, each stated by rows in the configuration
(:mod:`~tablewatch.rules.games.three_card_poker.paytables`). Settlement:
:mod:`~tablewatch.rules.games.three_card_poker.settlement`; its own checks:
PLAY_WAGER_OUT_OF_RANGE (a Play other than the Ante) and DECISION_MISSING.

No text of ch. 649a was read: every section is cited by number only, from
the chapter's usual structure (that of ch. 641a): .3 cards and decks, .5 the
shuffler, .7 wagers and the lockout, .8-.10 dealing, .11 procedure and
settlement, .12 payout odds, .13 irregularities.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.checks import decision_missing
from tablewatch.rules.game_rules import (
    Configuration,
    Exposure,
    GameCheck,
    GameRules,
    HoldWager,
    HouseBonus,
    ProgressiveReset,
    RowsEdge,
    Wager,
    sections_by_structure,
)
from tablewatch.rules.games.three_card_poker import (
    ante_play_edge,
    decision_values,
    paytables,
    play_wager_check,
    side_bet_edges,
    words,
)
from tablewatch.rules.games.three_card_poker.settlement import (
    DEADLINE,
    settle_three_card_poker,
)

NAME: Final = "three_card_poker"
_ODDS: Final = paytables.SECTION

RULES: Final = GameRules(
    name=NAME,
    title="Three Card Poker",
    chapter="ch. 649a",
    wagers=(
        Wager("ante", None, _ODDS, always=True),
        Wager("play", None, _ODDS, placed=False),  # a decision
        Wager("ante_bonus", "ante_bonus", _ODDS, placed=False),  # paid by the house
        Wager("pair_plus", "pair_plus", _ODDS),
        Wager("six_card_bonus", "six_card_bonus", _ODDS),
        Wager("progressive", "progressive", _ODDS),
    ),
    hand_cards=3,
    areas=(("dealer", 3, "the dealer"),),
    exposure=Exposure("dealer", "a dealer card", face_up=0, revealed_by=("dealer", None)),
    configuration=Configuration(
        lettered={},
        required=("ante_bonus",),
        progressive_reset=ProgressiveReset("progressive", {}, _ODDS),
        rows=paytables.ROWS,
    ),
    sections=sections_by_structure("649a"),  # no subsection of these was read
    settle=settle_three_card_poker,
    checks=(
        GameCheck(play_wager_check.CODE, play_wager_check.check),
        GameCheck(decision_missing.CODE, decision_missing.check),
    ),
    house_bonuses=(HouseBonus("ante_bonus", "an Ante bonus", "Ante"),),
    decision_wagers={"play": "play"},
    decision_deadline=DEADLINE,
    envy_wagers=("progressive",),
    envy_unearned="the dealer's",
    edges={
        "ante": RowsEdge("ante_bonus", paytables.ANTE_BONUS, ante_play_edge.edge),
        "pair_plus": RowsEdge("pair_plus", paytables.PAIR_PLUS, side_bet_edges.pair_plus_edge),
        "six_card_bonus": RowsEdge(
            "six_card_bonus", paytables.SIX_CARD_BONUS, side_bet_edges.six_card_bonus_edge
        ),
    },
    hold=(  # the Ante, Play and Ante bonus per unit of Ante
        HoldWager("ante", ("ante", "play", "ante_bonus"), "ante"),
        HoldWager("pair_plus", ("pair_plus",), "pair_plus"),
        HoldWager("six_card_bonus", ("six_card_bonus",), "six_card_bonus"),
    ),
    words=words.WORDS,
    decision_values=decision_values.VALUES,
)
