"""Expected settlement of an Ultimate Texas Hold 'Em round (§ 653a.12(a)-(c), the protocol).

- Each hand is the best five of seven: the seat's (or the dealer's) two cards
  and the five community cards (§ 653a.1, "Hand").
- The dealer qualifies with a pair or better; not qualified, the Ante pushes
  (``push``, paid 0) and the other bets stay in action.
- A seat whose hand beats the dealer's wins the Play 1 to 1, the Ante 1 to 1
  when the dealer qualified (§ 653a.12(a)), and the Blind by the table's
  Blind pay table when its hand is one the table pays, else the Blind pushes
  (§ 653a.12(b)). A tie pushes Ante, Play and Blind; a lower hand loses them
  (the Ante pushes instead when the dealer did not qualify).
- A fold, or no Play before the dealer's reveal (DECISION_MISSING), loses
  the Ante and the Blind; the Play is the first ``play`` decision's amount. A
  Play made after the dealer's reveal is handed back (``returned``).
- Trips pays by its pay table on the seat's hand whatever the dealer holds,
  also after a fold (§ 653a.12(c)); the progressive is settled on the same
  hand by the casino's rows (validated by a floorperson, a meter payout never
  from the table inventory).
- A hand holding the same card twice (DUPLICATE_CARD) prices none of its
  wagers; a dealer's such hand prices no Ante, Play or Blind. Wrong card
  counts are a misdeal (the round must be voided): nothing is priced.

Sections of ch. 653a other than § 653a.12(a)-(c) were not read: the
procedure (folds, the dealer's qualification, ties and losses) is cited
``§ 653a.11``; a Blind pushed on a winning hand its table does not pay, the
table's own last row ("Push"), § 653a.12(b).
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.game_rules import DecisionDeadline
from tablewatch.rules.games.ultimate_texas_holdem.paytables import (
    ANTE_AND_PLAY,
    ANTE_PLAY_SECTION,
    BLIND_SECTION,
    PROGRESSIVE_SECTION,
)
from tablewatch.rules.hands import Hand5, best5of7, category_of
from tablewatch.rules.paytables.hand_names import five_card_names
from tablewatch.rules.round_view import RoundView
from tablewatch.rules.settlement.expected import Expected, Settlement, distinct
from tablewatch.rules.table_config import TableConfig

PROCEDURE_SECTION: Final = "§ 653a.11"  # folds and the dealer's qualification: not read
SEAT_CARDS: Final = 2
DEALER_CARDS: Final = 2
COMMUNITY_CARDS: Final = 5
DEADLINE: Final = DecisionDeadline(  # DECISION_MISSING, and the Play a seat made in time
    "ante", ("play", "fold"), ("dealer", None), "the dealer's cards were turned", PROCEDURE_SECTION
)


def settle_ultimate_texas_holdem(view: RoundView, config: TableConfig) -> Settlement:
    out = Settlement()
    community = view.cards.get("community", [])
    if len(community) != COMMUNITY_CARDS:
        return out  # a misdeal: the round must be voided
    one_deck = view.no_repeated_card
    dealer = None
    dealer_cards = [*view.cards.get("dealer", []), *community]
    if len(dealer_cards) == DEALER_CARDS + COMMUNITY_CARDS and (one_deck or distinct(dealer_cards)):
        dealer = best5of7(dealer_cards)
    for seat in view.seats():
        own = view.seat_cards(seat)
        seven = [*own, *community]
        if len(own) != SEAT_CARDS or not (one_deck or distinct(seven)):
            continue  # a misdeal, or a repeated card: nothing to price
        _settle_seat(out, view, config, seat, best5of7(seven), dealer)
    return out


def _settle_seat(
    out: Settlement,
    view: RoundView,
    config: TableConfig,
    seat: int,
    hand: int,
    dealer: int | None,
) -> None:
    names = five_card_names(hand)
    ante = view.amount(seat, "ante")
    blind = view.amount(seat, "blind")
    play, late = DEADLINE.wagered_by(view, seat)
    if late:  # made after the dealer's cards were turned: handed back, the seat as folded
        out.add(Expected(seat, "play", "returned", late, PROCEDURE_SECTION))
    if not play:
        for bet, stake in (("ante", ante), ("blind", blind)):
            if stake:
                out.add(Expected(seat, bet, "lose", stake, PROCEDURE_SECTION))
    elif dealer is not None:
        _against_dealer(out, config, seat, (ante, blind, play), hand, names, dealer)
    out.add_table_wager(config, seat, "trips", view.amount(seat, "trips"), names)
    out.add_table_wager(
        config,
        seat,
        "progressive",
        view.amount(seat, "progressive"),
        names,
        PROGRESSIVE_SECTION,
        PROGRESSIVE_SECTION,
    )


def _against_dealer(
    out: Settlement,
    config: TableConfig,
    seat: int,
    stakes: tuple[int, int, int],
    hand: int,
    names: tuple[str, ...],
    dealer: int,
) -> None:
    ante, blind, play = stakes
    qualified = category_of(dealer) >= Hand5.PAIR
    if hand > dealer:
        out.add(Expected(seat, "play", "win", play, ANTE_PLAY_SECTION, odds=ANTE_AND_PLAY))
        if ante and qualified:
            out.add(Expected(seat, "ante", "win", ante, ANTE_PLAY_SECTION, odds=ANTE_AND_PLAY))
        elif ante:
            out.add(Expected(seat, "ante", "push", ante, PROCEDURE_SECTION))
        table = config.paytables.get("blind")
        won = table.odds_for(names) if table is not None else None
        if blind and won is not None:
            out.add(Expected(seat, "blind", "win", blind, BLIND_SECTION, *won))
        elif blind:
            out.add(Expected(seat, "blind", "push", blind, BLIND_SECTION))
        return
    result = "push" if hand == dealer else "lose"  # § 653a.12 states only what a win pays
    out.add(Expected(seat, "play", result, play, PROCEDURE_SECTION))
    if blind:
        out.add(Expected(seat, "blind", result, blind, PROCEDURE_SECTION))
    if ante:
        out.add(Expected(seat, "ante", result if qualified else "push", ante, PROCEDURE_SECTION))
