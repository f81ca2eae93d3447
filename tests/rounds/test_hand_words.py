"""Hands named by the round's game (its descriptor's ``words``), never by how many cards
were dealt: each game's names, written out here by hand, and a simulated round of each of
the two later games reconstructed with its hands named."""

from __future__ import annotations

import pytest

from tablewatch.rounds.from_files import rounds_in_events
from tablewatch.rules.config import parse_config
from tablewatch.rules.events import RoundStart
from tablewatch.rules.games import rules_of
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import choose


def seat(game: str, cards: str, **areas: str) -> tuple[str | None, str | None, str | None]:
    words = rules_of(game).words
    assert words is not None
    named = words.seat(cards.split(), {k: v.split() for k, v in areas.items()})
    return named.hand, named.three_card_hand, named.six_card_hand


def dealer(game: str, cards: str, **areas: str) -> str | None:
    words = rules_of(game).words
    assert words is not None
    return words.dealer(cards.split(), {k: v.split() for k, v in areas.items()})


def test_three_card_poker_names_three_cards_and_the_six_with_the_dealers() -> None:
    assert seat("three_card_poker", "7c 7d 7h", dealer="Qs Jd 2c") == (
        "three of a kind, sevens",
        None,
        "three of a kind, sevens",
    )
    assert seat("three_card_poker", "Qc Jd Th") == ("straight, queen high", None, None)
    assert dealer("three_card_poker", "Ks 9s 2s") == "flush, king high"
    assert seat("three_card_poker", "Qc Jd") == (None, None, None)  # a misdeal


def test_ultimate_texas_holdem_names_the_best_five_of_seven() -> None:
    community = "Kh 9h 5h 3c 3d"
    assert seat("ultimate_texas_holdem", "Ah 2h", community=community) == (
        "flush, ace high, best five of seven",
        None,
        None,
    )
    assert (
        dealer("ultimate_texas_holdem", "Qc Qd", community=community)
        == "two pair, queens and threes, best five of seven"
    )
    assert seat("ultimate_texas_holdem", "Ah 2h", community="Kh 9h 5h") == (None, None, None)


def test_five_cards_at_a_let_it_ride_seat_are_a_misdeal_not_a_four_card_hand() -> None:
    """Today's guess by card count named five cards at any table as a best four."""
    assert seat("let_it_ride", "Ah Ad Ac Kh Kd", community="2c 3d") == (None, None, None)
    assert seat("four_card_poker", "Ah Ad Ac Kh Kd")[0] == "three of a kind, aces"


@pytest.mark.parametrize(
    ("game", "ending"),
    [("three_card_poker", ""), ("ultimate_texas_holdem", ", best five of seven")],
)
def test_a_simulated_round_of_the_game_is_reconstructed_with_its_hands_named(
    game: str, ending: str
) -> None:
    floor = Floor(tables=1, rounds=6, seed=5, games=choose(game))
    events = list(floor.events())
    table_id = next(iter(floor.config["tables"]))
    round_id = next(e.round_id for e in events if isinstance(e, RoundStart))
    [report] = rounds_in_events(events, parse_config(floor.config), table_id, round_id)
    assert report.game == game
    named = [s.hand for s in report.seats if s.cards]
    assert named and all(h is not None and h.endswith(ending) for h in named)
    assert report.dealer is not None and report.dealer.hand is not None
