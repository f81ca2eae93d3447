"""Expected settlement of a Three Card Poker round (the protocol; cited § 649a.11, § 649a.12).

- The dealer qualifies with queen high or better. Not qualified: the Ante
  wins 1 to 1 and the Play pushes. Qualified: the higher three-card hand wins
  Ante and Play 1 to 1, the lower loses them; a tie pushes both.
- A seat that folds, or makes no decision before the dealer's reveal
  (DECISION_MISSING), loses the Ante and the Pair Plus; a Play made after
  the reveal is handed back (``returned``).
- The Ante bonus (straight or better, by the table's rows) is paid on the
  Ante to a seat that played, whatever the dealer holds.
- Pair Plus pays on the seat's own three cards, whatever the dealer holds.
- The Six Card Bonus (best five of the seat's three and the dealer's three)
  and the progressive (the seat's three) are settled on the cards, whether
  the seat played or folded; a progressive win is validated by a floorperson
  and a meter payout never comes from the table inventory.
- The Envy Bonus, where configured: to each progressive wager for every
  *other* seat's hand of its rows.
- A hand holding the same card twice (DUPLICATE_CARD) prices none of its
  wagers; a dealer's such hand prices no Ante, Play or Six Card Bonus.
"""

from __future__ import annotations

from typing import Final

from tablewatch.rules.cards import CARDS_BY_TEXT
from tablewatch.rules.game_rules import DecisionDeadline
from tablewatch.rules.games.three_card_poker.paytables import ANTE_AND_PLAY, SECTION
from tablewatch.rules.hands import best5of6, strength3
from tablewatch.rules.paytables.hand_names import five_card_names, three_card_names
from tablewatch.rules.round_view import RoundView
from tablewatch.rules.settlement.expected import (
    Expected,
    ExpectedEnvy,
    Settlement,
    distinct,
    envy_amount,
)
from tablewatch.rules.table_config import TableConfig

PROCEDURE_SECTION: Final = "§ 649a.11"
DEADLINE: Final = DecisionDeadline(  # DECISION_MISSING, and the Play a seat made in time
    "ante", ("play", "fold"), ("dealer", None), "the dealer's cards were turned", PROCEDURE_SECTION
)
# Queen high: the lowest such hand is Q-3-2 of mixed suits.
QUALIFYING: Final = strength3([CARDS_BY_TEXT[c] for c in ("Qc", "3d", "2h")])


def qualifies(dealer: int) -> bool:
    """Whether the dealer's three-card strength is queen high or better."""
    return dealer >= QUALIFYING


def settle_three_card_poker(view: RoundView, config: TableConfig) -> Settlement:
    out = Settlement()
    one_deck = view.no_repeated_card
    dealer_cards = view.cards.get("dealer", [])
    dealer = None
    if len(dealer_cards) == 3 and (one_deck or distinct(dealer_cards)):
        dealer = strength3(dealer_cards)
    hands: dict[int, tuple[str, ...]] = {}
    for seat in view.seats():
        cards = view.seat_cards(seat)
        if len(cards) != 3 or not (one_deck or distinct(cards)):
            continue  # a misdeal (the round must be voided) or a repeated card
        hand = strength3(cards)
        names = three_card_names(hand, cards)
        hands[seat] = names
        six = None
        if dealer is not None and (one_deck or distinct([*cards, *dealer_cards])):
            six = five_card_names(best5of6([*cards, *dealer_cards]))
        _settle_seat(out, view, config, seat, hand, names, dealer, six)
    _envy(out, view, config, hands)
    return out


def _settle_seat(
    out: Settlement,
    view: RoundView,
    config: TableConfig,
    seat: int,
    hand: int,
    names: tuple[str, ...],
    dealer: int | None,
    six: tuple[str, ...] | None,
) -> None:
    ante = view.amount(seat, "ante")
    play, late = DEADLINE.wagered_by(view, seat)
    if late:  # made after the dealer's cards were turned: handed back, the seat as folded
        out.add(Expected(seat, "play", "returned", late, PROCEDURE_SECTION))
    folded = ante > 0 and play == 0
    pair_plus = view.amount(seat, "pair_plus")
    if folded:
        out.add(Expected(seat, "ante", "lose", ante, PROCEDURE_SECTION))
        if pair_plus:
            out.add(Expected(seat, "pair_plus", "lose", pair_plus, PROCEDURE_SECTION))
    else:
        if dealer is not None:
            _ante_and_play(out, seat, ante, play, hand, dealer)
        out.add_table_wager(config, seat, "pair_plus", pair_plus, names)
    if ante and play:
        bonus = config.paytables.get("ante_bonus")
        won = bonus.odds_for(names) if bonus is not None else None
        if won is not None:
            out.add(Expected(seat, "ante_bonus", "win", ante, SECTION, *won))
        else:
            out.add(Expected(seat, "ante_bonus", "lose", ante, SECTION, optional=True))
    if six is not None:
        out.add_table_wager(
            config, seat, "six_card_bonus", view.amount(seat, "six_card_bonus"), six
        )
    out.add_table_wager(
        config,
        seat,
        "progressive",
        view.amount(seat, "progressive"),
        names,
        PROCEDURE_SECTION,
        PROCEDURE_SECTION,
    )


def _ante_and_play(
    out: Settlement, seat: int, ante: int, play: int, hand: int, dealer: int
) -> None:
    """Ante and Play of a seat that played, against the dealer's hand."""
    if not qualifies(dealer):
        results = ("win", "push")
    elif hand > dealer:
        results = ("win", "win")
    elif hand == dealer:
        results = ("push", "push")
    else:
        results = ("lose", "lose")
    for bet, stake, result in (("ante", ante, results[0]), ("play", play, results[1])):
        if stake:
            odds = ANTE_AND_PLAY if result == "win" else None
            out.add(Expected(seat, bet, result, stake, PROCEDURE_SECTION, odds=odds))


def _envy(
    out: Settlement, view: RoundView, config: TableConfig, hands: dict[int, tuple[str, ...]]
) -> None:
    per_dollar = config.envy_per_dollar
    if not per_dollar:
        return
    qualifying: list[tuple[int, str, int]] = []
    for seat, names in hands.items():
        for name in names:
            if name in per_dollar:
                qualifying.append((seat, name, per_dollar[name]))
                break
    for seat in view.seats() if qualifying else ():
        stake = view.amount(seat, "progressive")
        if not stake:
            continue
        for holder, name, cents in qualifying:
            if holder != seat:
                out.envy.append(
                    ExpectedEnvy(seat, holder, envy_amount(cents, stake), name, SECTION)
                )
