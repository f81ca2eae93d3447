"""Expected settlement of a Let It Ride round (§ 643a.11 as amended 2019, § 643a.12).

- Bets 1, 2, 3 pay on the five-card hand (three cards + two community cards)
  at pay table A or B when it is a pair of tens or better; a bet pulled back
  (§ 643a.11(b), (d)) is returned. The payout limit per hand (§ 643a.12(e))
  caps what the three bets pay together, and nothing else.
- Five Card Bonus on the five-card hand; Three Card Bonus and the (three-card)
  Progressive on the player's three cards; the progressive's spade
  mini-royal is 100% of the meter, never from the table inventory.
- Envy Bonus to each progressive player for every *other* player's
  mini-royal (§ 643a.11(g)(3)(v), § 643a.12(d)(5)).
- 2019 wagers, pay tables from the configuration: Five-Card Progressive and
  its Envy Bonus, Five Card Hand Bonus, Six Card Bonus (best five of the
  player's three cards and the three bonus cards).
- A hand holding the same card twice (DUPLICATE_CARD, one deck) has no rank:
  its wagers are not priced, and it qualifies no one for an Envy Bonus.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tablewatch.rules.games.let_it_ride import main_paytable
from tablewatch.rules.games.let_it_ride import progressive_paytable as progressive_tables
from tablewatch.rules.games.let_it_ride.casino_supplied_paytables import FIVE_CARD_ENVY_SECTION
from tablewatch.rules.hands import best5of6, strength3, strength5
from tablewatch.rules.paytables.hand_names import five_card_names, three_card_names
from tablewatch.rules.paytables.odds import OddsKind
from tablewatch.rules.paytables.table import PayTable
from tablewatch.rules.round_view import SEAT_TARGETS, RoundView
from tablewatch.rules.settlement.expected import (
    Expected,
    ExpectedEnvy,
    PayoutLimit,
    Settlement,
    distinct,
    envy_amount,
)
from tablewatch.rules.table_config import TableConfig

MAIN_BETS: Final = ("bet1", "bet2", "bet3")
NOTHING_PULLED: Final[dict[str, str]] = {}  # a seat with no decision (read only)
PULLABLE: Final = ("bet1", "bet2")
WITHDRAW_SECTION: Final = {"bet1": "§ 643a.11(b)", "bet2": "§ 643a.11(d)"}
THREE_CARD_VALIDATION: Final = "§ 643a.11(g)(3)(iii)"
THREE_CARD_INVENTORY: Final = "§ 643a.11(g)(3)(iv)"
THREE_CARD_ENVY_RULE: Final = "§ 643a.11(g)(3)(v)"
FIVE_CARD_VALIDATION: Final = "§ 643a.11(g)(4)(iii)"
FIVE_CARD_INVENTORY: Final = "§ 643a.11(g)(4)(iv)"
FIVE_CARD_ENVY_RULE: Final = "§ 643a.11(g)(4)(v)"
THREE_CARD_ENVY_SECTIONS: Final = f"{THREE_CARD_ENVY_RULE}, {progressive_tables.ENVY_SECTION}"
FIVE_CARD_ENVY_SECTIONS: Final = f"{FIVE_CARD_ENVY_RULE}, {FIVE_CARD_ENVY_SECTION}"
HAND_BONUS_VALIDATION: Final = "§ 643a.11(g)(5)(ii)"
HAND_BONUS_VALIDATION_ODDS: Final = 500  # "for 1" payouts from 500 for 1 need a floorperson


def settle_let_it_ride(view: RoundView, config: TableConfig) -> Settlement:
    out = Settlement()
    cards_at = view.cards
    community = cards_at.get("community", [])
    bonus = cards_at.get("bonus", [])
    five: dict[int, tuple[str, ...]] = {}
    three: dict[int, tuple[str, ...]] = {}
    both = len(community) == 2
    one_deck = view.no_repeated_card  # the usual round: no hand to check for a repeated card
    for seat in view.dealt_seats():
        cards = cards_at[SEAT_TARGETS[seat]]  # dealt: it has cards
        if len(cards) != 3 or not (one_deck or distinct(cards)):
            continue
        three[seat] = three_card_names(strength3(cards), cards)
        if both:
            hand = cards + community
            if one_deck or distinct(hand):
                five[seat] = five_card_names(strength5(hand))
    main = config.paytables["main"]
    for seat in view.seats():
        if seat not in five:
            continue  # a misdeal (the round must be voided) or a repeated card: nothing to price
        bets = view.bets(seat)
        _main_bets(out, view, config, main, seat, five[seat])
        # Side wagers, each priced only if placed (most seats play one or two).
        if wager := bets.get("five_card_bonus"):
            out.add_table_wager(config, seat, "five_card_bonus", wager.amount, five[seat])
        if wager := bets.get("three_card_bonus"):
            out.add_table_wager(config, seat, "three_card_bonus", wager.amount, three[seat])
        if wager := bets.get("progressive"):
            out.add_table_wager(
                config,
                seat,
                "progressive",
                wager.amount,
                three[seat],
                THREE_CARD_VALIDATION,
                THREE_CARD_INVENTORY,
            )
        if wager := bets.get("five_card_progressive"):
            out.add_table_wager(
                config,
                seat,
                "five_card_progressive",
                wager.amount,
                five[seat],
                FIVE_CARD_VALIDATION,
                FIVE_CARD_INVENTORY,
            )
        if wager := bets.get("five_card_hand_bonus"):
            _hand_bonus(out, config, seat, wager.amount, five[seat])
        if (wager := bets.get("six_card_bonus")) and len(bonus) == 3:
            six_cards = [*view.seat_cards(seat), *bonus]
            if one_deck or distinct(six_cards):
                six = five_card_names(best5of6(six_cards))
                out.add_table_wager(config, seat, "six_card_bonus", wager.amount, six)
    _envy(out, view, three, "progressive", config.envy_per_dollar, THREE_CARD_ENVY_SECTIONS)
    _envy(
        out,
        view,
        five,
        "five_card_progressive",
        config.five_card_envy_per_dollar,
        FIVE_CARD_ENVY_SECTIONS,
    )
    return out


def pulled_bets(view: RoundView, seat: int) -> dict[str, str]:
    """Bets 1 and 2 the player pulled back: bet -> the decision's event_id."""
    pulled: dict[str, str] = {}
    for decision in view.decisions.get(seat, []):
        if decision.action == "pull" and decision.bet in PULLABLE and decision.bet not in pulled:
            pulled[decision.bet] = decision.event_id
    return pulled


def _main_bets(
    out: Settlement,
    view: RoundView,
    config: TableConfig,
    table: PayTable,
    seat: int,
    names: tuple[str, ...],
) -> None:
    won = table.odds_for(names)
    pulled = pulled_bets(view, seat) if seat in view.decisions else NOTHING_PULLED
    uncapped = 0
    bets = view.bets(seat)
    for bet in MAIN_BETS:
        wager = bets.get(bet)
        if wager is None:
            continue
        stake = wager.amount
        if bet in pulled:
            out.add(Expected(seat, bet, "returned", stake, WITHDRAW_SECTION[bet], optional=True))
        elif won is None:
            out.add(Expected(seat, bet, "lose", stake, table.section))
        else:
            out.add(Expected(seat, bet, "win", stake, table.section, won[0], won[1]))
            uncapped += won[1].value * stake
    if config.payout_limit is not None and uncapped > config.payout_limit:
        out.limits[seat] = PayoutLimit(
            seat, config.payout_limit, uncapped, main_paytable.PAYOUT_LIMIT_SECTION
        )


def _hand_bonus(
    out: Settlement, config: TableConfig, seat: int, stake: int, names: tuple[str, ...]
) -> None:
    """Five Card Hand Bonus: a floorperson verifies 500 for 1 and up, and meter payouts."""
    table = config.paytables.get("five_card_hand_bonus")
    if not stake or table is None:
        return
    won = table.odds_for(names)
    if won is None:
        out.add(Expected(seat, "five_card_hand_bonus", "lose", stake, table.section))
        return
    hand, odds = won
    big = odds.is_meter or (
        odds.kind is OddsKind.FOR_ONE and odds.value >= HAND_BONUS_VALIDATION_ODDS
    )
    out.add(
        Expected(
            seat,
            "five_card_hand_bonus",
            "win",
            stake,
            table.section,
            hand,
            odds,
            validation_section=HAND_BONUS_VALIDATION if big else None,
        )
    )


def _envy(
    out: Settlement,
    view: RoundView,
    hands: Mapping[int, tuple[str, ...]],
    bet: str,
    per_dollar: Mapping[str, int],
    section: str,
) -> None:
    if not per_dollar:
        return
    qualifying: list[tuple[int, str, int]] = []
    for holder, names in hands.items():
        for name in names:
            if name in per_dollar:
                qualifying.append((holder, name, per_dollar[name]))
                break
    if not qualifying:
        return  # no hand earns one: the usual round
    for seat in view.seats():
        stake = view.amount(seat, bet)
        if not stake:
            continue
        for holder, name, amount in qualifying:
            if holder != seat:
                out.envy.append(
                    ExpectedEnvy(seat, holder, envy_amount(amount, stake), name, section)
                )
