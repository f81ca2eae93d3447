"""Four Card Poker (58 Pa. Code ch. 641a): the game's descriptor.

Five cards to each player, six to the dealer (the sixth face up); best four
of each, ranked as four-card poker (§ 641a.6; ``rules/hands/four_card.py``:
three of a kind beats a straight and a flush, four of a kind a straight
flush). Ante and Play at 1 to 1 with the Ante bonus, the Aces Up pay
tables, the progressive and its Envy Bonus. Settlement:
:mod:`tablewatch.rules.games.four_card_poker.settlement`; its own check:
PLAY_WAGER_OUT_OF_RANGE.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.game_rules import (
    Configuration,
    EnvyChoice,
    ExactEdge,
    Exposure,
    GameCheck,
    GameRules,
    HoldWager,
    HouseBonus,
    LetteredSlot,
    MonteCarloEdge,
    ProgressiveReset,
    Sections,
    Wager,
)
from tablewatch.rules.games.four_card_poker import (
    aces_up_edge,
    aces_up_paytable,
    ante_and_bonus_paytable,
    ante_edge,
    decision_values,
    play_wager_check,
    progressive_paytable,
    words,
)
from tablewatch.rules.games.four_card_poker.settlement import settle_four_card_poker

NAME: Final = "four_card_poker"

RULES: Final = GameRules(
    name=NAME,
    title="Four Card Poker",
    chapter="ch. 641a",
    wagers=(
        Wager("ante", None, ante_and_bonus_paytable.ANTE_PLAY_SECTION, always=True),
        Wager("play", None, ante_and_bonus_paytable.ANTE_PLAY_SECTION, placed=False),  # a decision
        Wager("ante_bonus", None, ante_and_bonus_paytable.ANTE_BONUS_SECTION, placed=False),
        Wager("aces_up", "aces_up", aces_up_paytable.SECTION),
        Wager("progressive", "progressive", progressive_paytable.SECTION),
    ),
    hand_cards=5,
    areas=(("dealer", 6, "the dealer"),),
    exposure=Exposure("dealer", "a dealer card", face_up=1, revealed_by=("dealer", None)),
    configuration=Configuration(
        lettered={
            "aces_up": LetteredSlot(aces_up_paytable.ACES_UP, aces_up_paytable.SECTION),
            "progressive": LetteredSlot(
                progressive_paytable.PROGRESSIVE, progressive_paytable.SECTION
            ),
        },
        required=("aces_up",),
        progressive_reset=ProgressiveReset(
            "progressive",
            progressive_paytable.MIN_RESET,
            progressive_paytable.RESET_SECTION,
        ),
        envy=EnvyChoice(
            "envy",
            progressive_paytable.ENVY_PER_DOLLAR,
            progressive_paytable.ENVY_SECTION,
            required_with="progressive",
        ),
    ),
    sections=Sections(
        lockout="§ 641a.7(c)",
        one_deck="§ 641a.3(a)",
        deck_change="§ 641a.3(c)",
        shuffler_count="§ 641a.5(b)",
        wagers_offered="§ 641a.7(d)",
        settlement="§ 641a.11(c)",
        envy="§ 641a.11(c)(5)(v)",
        round_end="§ 641a.11(d)",
        void="§ 641a.13",
        misdeal="§ 641a.13(c)",
        early_exposure="§ 641a.13(d)",
        face_up_in_deck="§ 641a.13(a)",
        shoe_fault="§ 641a.13(f)",
        progressive_count={
            "manual_shoe": "§ 641a.8(b)",
            "hand": "§ 641a.9(a)(3)",
            "automated_shoe": "§ 641a.10(a)(2)",
        },
        stub_count={
            "manual_shoe": "§ 641a.8(h)",
            "hand": "§ 641a.9(f)",
            "automated_shoe": "§ 641a.10(f)",
        },
        stub_cadence={
            "manual_shoe": "§ 641a.8(f)",
            "hand": "§ 641a.9(d)",
            "automated_shoe": "§ 641a.10(d)",
        },
    ),
    settle=settle_four_card_poker,
    checks=(GameCheck(play_wager_check.CODE, play_wager_check.check),),
    house_bonuses=(HouseBonus("ante_bonus", "an Ante bonus", "Ante"),),  # § 641a.12(b)
    decision_wagers={"play": "play"},  # the Play wager is made by decision (§ 641a.11(b))
    envy_wagers=("progressive",),
    envy_unearned="the dealer's",
    edges={
        "ante": MonteCarloEdge(ante_edge.edge),
        "aces_up": ExactEdge(aces_up_paytable.ACES_UP, aces_up_edge.edge),
    },
    hold=(  # the Ante, Play and Ante bonus per unit of Ante
        HoldWager("ante", ("ante", "play", "ante_bonus"), "ante"),
        HoldWager("aces_up", ("aces_up",), "aces_up"),
    ),
    words=words.WORDS,
    decision_values=decision_values.VALUES,
)
