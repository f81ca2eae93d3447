"""Let It Ride (58 Pa. Code ch. 643a, with the 2019 § 643a.11): the game's descriptor.

Three cards to each player and two community cards, turned one at a time;
three equal bets, the first two of which may be pulled back. The Five Card
and Three Card Bonuses, the three-card progressive and its Envy Bonus, and
the 2019 wagers whose pay tables the casino supplies. A payout limit per
hand caps the three bets together. Hands rank as five-card poker (§ 643a.6(a),
(b)) and, for the Three Card Bonus and the progressive, three-card poker
(§ 643a.6(c), (d)), with the mini-royal in spades (§ 643a.12(d)(1)); the Six
Card Bonus is the best five of a seat's three and the bonus area's three. Settlement:
:mod:`tablewatch.rules.games.let_it_ride.settlement`; its own checks: UNEQUAL_BETS,
LATE_WITHDRAWAL.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.game_rules import (
    Configuration,
    ExactEdge,
    Exposure,
    FixedEnvy,
    GameCheck,
    GameRules,
    HoldWager,
    LetteredSlot,
    PayoutLimitRule,
    ProgressiveReset,
    Sections,
    Wager,
)
from tablewatch.rules.games.let_it_ride import (
    decision_values,
    five_card_bonus_edge,
    five_card_bonus_paytable,
    late_withdrawal_check,
    main_edge,
    main_paytable,
    progressive_paytable,
    three_card_bonus_edge,
    three_card_bonus_paytable,
    unequal_bets_check,
    words,
)
from tablewatch.rules.games.let_it_ride.casino_supplied_paytables import (
    CASINO_SUPPLIED,
    FIVE_CARD_ENVY_SECTION,
)
from tablewatch.rules.games.let_it_ride.settlement import (
    MAIN_BETS,
    PULLABLE,
    pulled_bets,
    settle_let_it_ride,
)

NAME: Final = "let_it_ride"

RULES: Final = GameRules(
    name=NAME,
    title="Let It Ride",
    chapter="ch. 643a",
    wagers=(
        *(Wager(bet, "main", main_paytable.SECTION, always=True) for bet in MAIN_BETS),
        Wager("five_card_bonus", "five_card_bonus", five_card_bonus_paytable.SECTION),
        Wager("three_card_bonus", "three_card_bonus", three_card_bonus_paytable.SECTION),
        Wager("progressive", "progressive", progressive_paytable.SECTION),
        *(Wager(bet, bet, section) for bet, section in CASINO_SUPPLIED.items()),
    ),
    hand_cards=3,
    areas=(("community", 2, "the community area"),),
    wager_areas=(("six_card_bonus", ("bonus", 3, "the Six Card Bonus area")),),
    exposure=Exposure(
        "community",
        "a community card",
        face_up=0,
        revealed_by=("community", 2),
        turned=((("community", 1), 0),),  # the first community card is turned on its own
    ),
    configuration=Configuration(
        lettered={
            "main": LetteredSlot(main_paytable.MAIN, main_paytable.SECTION),
            "five_card_bonus": LetteredSlot(
                five_card_bonus_paytable.FIVE_CARD_BONUS, five_card_bonus_paytable.SECTION
            ),
            "three_card_bonus": LetteredSlot(
                three_card_bonus_paytable.THREE_CARD_BONUS, three_card_bonus_paytable.SECTION
            ),
            "progressive": LetteredSlot(
                progressive_paytable.PROGRESSIVE, progressive_paytable.SECTION
            ),
        },
        required=("main",),
        progressive_reset=ProgressiveReset(
            "progressive",
            progressive_paytable.MIN_RESET,
            progressive_paytable.RESET_SECTION,
        ),
        fixed_envy=FixedEnvy("progressive", progressive_paytable.ENVY_PER_DOLLAR),
        casino_supplied=CASINO_SUPPLIED,
        casino_envy="five_card_envy",
        casino_envy_section=FIVE_CARD_ENVY_SECTION,
        payout_limit=PayoutLimitRule(
            main_paytable.MIN_PAYOUT_LIMIT,
            main_paytable.PAYOUT_LIMIT_SECTION,
            bets=MAIN_BETS,
            bet="main",
        ),
    ),
    sections=Sections(
        lockout="§ 643a.7(c)",
        one_deck="§ 643a.3(a)",
        deck_change="§ 643a.3(c)",
        shuffler_count="§ 643a.5(b)",
        wagers_offered="§ 643a.7",
        settlement="§ 643a.11(f)",
        envy="§ 643a.11(g)(3)(v)",
        round_end="§ 643a.11(h)",
        void="§ 643a.13",
        misdeal="§ 643a.13(c)",
        early_exposure="§ 643a.13(d)",
        face_up_in_deck="§ 643a.13(a)",
        shoe_fault="§ 643a.13(f)",
        progressive_count={
            "manual_shoe": "§ 643a.8(b)(2)",
            "hand": "§ 643a.9(a)(3)(ii)",
            "automated_shoe": "§ 643a.10(a)(2)(ii)",
        },
        stub_count={
            "manual_shoe": "§ 643a.8(h)",
            "hand": "§ 643a.9(f)",
            "automated_shoe": "§ 643a.10(f)",
        },
        stub_cadence={
            "manual_shoe": "§ 643a.8(f)",
            "hand": "§ 643a.9(d)",
            "automated_shoe": "§ 643a.10(d)",
        },
    ),
    settle=settle_let_it_ride,
    checks=(
        GameCheck(unequal_bets_check.CODE, unequal_bets_check.check),
        GameCheck(late_withdrawal_check.CODE, late_withdrawal_check.check),
    ),
    decision_bets=PULLABLE,  # a pull or a ride names bet 1 or bet 2
    withdrawn=pulled_bets,  # bets 1 and 2 pulled back (§ 643a.11(b), (d))
    envy_wagers=("progressive", "five_card_progressive"),
    envy_unearned="no",
    edges={
        "main": ExactEdge(main_paytable.MAIN, main_edge.edge),
        "three_card_bonus": ExactEdge(
            three_card_bonus_paytable.THREE_CARD_BONUS, three_card_bonus_edge.edge
        ),
        "five_card_bonus": ExactEdge(
            five_card_bonus_paytable.FIVE_CARD_BONUS, five_card_bonus_edge.edge
        ),
    },
    hold=(  # bets 1-3 per unit of Bet 3; the Five Card Bonus pays "for 1"
        HoldWager("main", MAIN_BETS, "bet3"),
        HoldWager("three_card_bonus", ("three_card_bonus",), "three_card_bonus"),
        HoldWager(
            "five_card_bonus", ("five_card_bonus",), "five_card_bonus", kept=("five_card_bonus",)
        ),
    ),
    words=words.WORDS,
    decision_values=decision_values.VALUES,
)
