"""Expected settlement of a Four Card Poker round (§§ 641a.11, 641a.12).

- Ante and Play: 1 to 1 when the player's best four cards are equal to or
  better than the dealer's best four of six (a tie goes to the player);
  § 641a.11(c)(3).
- A player who makes no Play Wager forfeits the Ante and the Progressive
  wager but keeps the Aces Up wager and the right to Envy Bonuses
  (§ 641a.11(b)).
- Ante bonus on trips or better, to a player who made a Play Wager, even on a
  losing hand (§ 641a.12(b)).
- Aces Up pays on the table regardless of the dealer (§ 641a.11(c)(4)).
- Progressive "for 1", four aces 100% of the meter, validated by a
  floorperson and never from the table inventory (§ 641a.11(c)(5)).
- Envy Bonus to each progressive player for every *other* player's
  qualifying hand (§ 641a.11(c)(5)(v), § 641a.12(d)(5)).
- A hand holding the same card twice (DUPLICATE_CARD, one deck) has no rank:
  a player's such hand prices none of its wagers and qualifies no one for an
  Envy Bonus; a dealer's prices no Ante or Play wager.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.games.four_card_poker import ante_and_bonus_paytable as ante_tables
from tablewatch.rules.games.four_card_poker import progressive_paytable as progressive_tables
from tablewatch.rules.hands import best4of5, best4of6
from tablewatch.rules.paytables.hand_names import four_card_names
from tablewatch.rules.round_view import SEAT_TARGETS, RoundView
from tablewatch.rules.settlement.expected import (
    Expected,
    ExpectedEnvy,
    Settlement,
    distinct,
    envy_amount,
)
from tablewatch.rules.table_config import TableConfig

ANTE_AND_PLAY: Final = ante_tables.ANTE_AND_PLAY
FORFEIT_SECTION: Final = "§ 641a.11(b)"
COMPARE_SECTION: Final = "§ 641a.11(c)(3)"
VALIDATION_SECTION: Final = "§ 641a.11(c)(5)(iii)"
INVENTORY_SECTION: Final = "§ 641a.11(c)(5)(iv)"
ENVY_RULE_SECTION: Final = "§ 641a.11(c)(5)(v)"


def settle_four_card_poker(view: RoundView, config: TableConfig) -> Settlement:
    out = Settlement()
    cards_at = view.cards
    dealer_cards = cards_at.get("dealer", [])
    one_deck = view.no_repeated_card  # the usual round: no hand to check for a repeated card
    dealer = None
    if len(dealer_cards) == 6 and (one_deck or distinct(dealer_cards)):
        dealer = best4of6(dealer_cards)
    hands: dict[int, int] = {}
    for seat in view.dealt_seats():
        cards = cards_at[SEAT_TARGETS[seat]]  # dealt: it has cards
        if len(cards) == 5 and (one_deck or distinct(cards)):
            hands[seat] = best4of5(cards)
    for seat in view.seats():
        hand = hands.get(seat)
        if hand is None:
            continue  # a misdeal (the round must be voided) or a repeated card: nothing to price
        _settle_seat(out, view, config, seat, hand, dealer)
    _envy(out, view, config, hands)
    return out


def _settle_seat(
    out: Settlement,
    view: RoundView,
    config: TableConfig,
    seat: int,
    hand: int,
    dealer: int | None,
) -> None:
    names = four_card_names(hand)
    ante = view.amount(seat, "ante")
    play = _play_amount(view, seat)
    folded = ante > 0 and play == 0
    compared = None if dealer is None else ("win" if hand >= dealer else "lose")
    if ante and folded:
        out.add(Expected(seat, "ante", "lose", ante, FORFEIT_SECTION))
    elif ante and compared:
        out.add(Expected(seat, "ante", compared, ante, COMPARE_SECTION, odds=ANTE_AND_PLAY))
    if play and compared:
        out.add(Expected(seat, "play", compared, play, COMPARE_SECTION, odds=ANTE_AND_PLAY))
    if ante and play:
        bonus = ante_tables.ANTE_BONUS.odds_for(names)
        if bonus is not None:
            out.add(
                Expected(seat, "ante_bonus", "win", ante, ante_tables.ANTE_BONUS_SECTION, *bonus)
            )
        else:
            out.add(
                Expected(
                    seat, "ante_bonus", "lose", ante, ante_tables.ANTE_BONUS_SECTION, optional=True
                )
            )
    aces_up = view.amount(seat, "aces_up")
    out.add_table_wager(config, seat, "aces_up", aces_up, names, inventory=INVENTORY_SECTION)
    stake = view.amount(seat, "progressive")
    if stake and folded:
        out.add(Expected(seat, "progressive", "lose", stake, FORFEIT_SECTION))
    elif stake:
        out.add_table_wager(
            config, seat, "progressive", stake, names, VALIDATION_SECTION, INVENTORY_SECTION
        )


def _play_amount(view: RoundView, seat: int) -> int:
    """The Play wager the player's first decision made (0 for a fold or no decision)."""
    for decision in view.decisions.get(seat, []):
        if decision.action == "play":
            return decision.amount or 0
        if decision.action == "fold":
            return 0
    return 0


def _envy(out: Settlement, view: RoundView, config: TableConfig, hands: dict[int, int]) -> None:
    if not config.envy_per_dollar:
        return
    qualifying: list[tuple[int, str, int]] = []
    for seat, hand in hands.items():
        for name in four_card_names(hand):
            if name in config.envy_per_dollar:
                qualifying.append((seat, name, config.envy_per_dollar[name]))
                break
    if not qualifying:
        return
    for seat in view.seats():
        stake = view.amount(seat, "progressive")
        if not stake:
            continue
        for holder, name, per_dollar in qualifying:
            if holder != seat:
                out.envy.append(
                    ExpectedEnvy(
                        seat,
                        holder,
                        envy_amount(per_dollar, stake),
                        name,
                        f"{ENVY_RULE_SECTION}, {progressive_tables.ENVY_SECTION}",
                    )
                )
