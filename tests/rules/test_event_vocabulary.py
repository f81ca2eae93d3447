"""The games and bets an event may name are the registry's: a game registered is decoded,
one not registered is refused naming the field and what is known."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tablewatch.rules import games
from tablewatch.rules.decode import (
    EventRejected,
    decode_event,
    decode_lines,
    decode_whole_lines,
)
from tablewatch.rules.events import Decision, TableOpen, Wager
from tablewatch.rules.game_rules import Wager as LayoutWager
from tests.game_copies import copy_of

BASE: dict[str, Any] = {
    "v": 1,
    "event_id": "e-1",
    "table_id": "T-1",
    "seq": 1,
    "ts": "2026-11-29T20:15:03.123Z",
}
REGISTERED = (
    "four_card_poker, let_it_ride, three_card_poker, ultimate_texas_holdem"  # registration order
)


def event(**fields: Any) -> bytes:
    return json.dumps({**BASE, **fields}).encode()


def table_open(game: str) -> bytes:
    return event(type="table_open", game=game, config="c-1")


def wager(bet: str, event_id: str = "e-2") -> bytes:
    return event(type="wager", event_id=event_id, round_id="R-1", seat=2, bet=bet, amount=500)


def refusal(raw: bytes) -> tuple[str | None, str]:
    with pytest.raises(EventRejected) as info:
        decode_event(raw, "line 1")
    return info.value.field, info.value.reason


@pytest.fixture
def toy() -> Iterator[None]:
    """A game of the test's own, with a bet no other game has, registered for the test."""
    rules = copy_of(
        games.rules_of("let_it_ride"),
        name="toy_stud",
        title="Toy Stud",
        wagers=(LayoutWager("toy_ante", None, "toy § 1", always=True),),
        decision_bets=("toy_ante",),
    )
    games.register(rules)
    try:
        yield
    finally:
        if "toy_stud" in games.names():
            games.unregister("toy_stud")


def test_an_unknown_game_is_refused_naming_the_field_and_the_registered_games() -> None:
    assert refusal(table_open("baccarat")) == (
        "game",
        f"unknown game 'baccarat': one of {REGISTERED}",
    )


def test_a_decisions_bet_is_one_a_registered_game_names_in_its_decisions(toy: None) -> None:
    pull = {"type": "decision", "round_id": "R-1", "seat": 2, "action": "pull"}
    assert refusal(event(**pull)) == (
        "bet",
        "a `pull` decision needs `bet` (bet1 or bet2 or toy_ante)",
    )
    pulled = decode_event(event(**pull, bet="toy_ante"))
    assert isinstance(pulled, Decision) and pulled.bet == "toy_ante"
    assert refusal(event(**pull, bet="bet3")) == ("bet", "Invalid enum value 'bet3'")


def test_a_game_registered_later_is_decoded_and_forgotten_when_unregistered(
    toy: None,
) -> None:
    opened = decode_event(table_open("toy_stud"))
    assert isinstance(opened, TableOpen) and opened.game == "toy_stud"
    placed = decode_event(wager("toy_ante"))
    assert isinstance(placed, Wager) and placed.bet == "toy_ante"
    block = decode_lines([table_open("toy_stud"), wager("toy_ante")], "f")
    assert (len(block.events), block.failed) == (2, [])
    whole = decode_whole_lines(table_open("toy_stud") + b"\n" + wager("toy_ante") + b"\n")
    assert whole is not None and len(whole) == 2

    games.unregister("toy_stud")
    assert refusal(wager("toy_ante")) == ("bet", "Invalid enum value 'toy_ante'")
    block = decode_lines([wager("bet1", "e-1"), wager("toy_ante"), wager("ante", "e-3")], "f")
    assert [e.bet for e in block.events if isinstance(e, Wager)] == ["bet1", "ante"]
    assert [(i, r.field, r.reason) for i, r in block.failed if r] == [
        (1, "bet", "Invalid enum value 'toy_ante'")
    ]
    assert decode_whole_lines(wager("toy_ante") + b"\n") is None  # the lines then say which
    assert refusal(table_open("toy_stud")) == (
        "game",
        f"unknown game 'toy_stud': one of {REGISTERED}",
    )
