"""Who sits where and what they bet: players come and go, stakes and side bets in proportion."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

UNITS = (500, 500, 1000, 1000, 1500, 2500, 2500, 5000, 10_000, 25_000)


@dataclass(slots=True)
class Player:
    unit: int  # cents on each main wager
    side_bet_rate: float
    progressive_rate: float
    progressive_chip: int  # $1 or $5
    side_bet_only: bool  # plays a side wager alone where the game allows it


@dataclass(slots=True)
class HoleCarder:
    """A player who sees the dealer's first card in a share ``sees`` of rounds and then takes
    the option best with it known (else plays as the other players do), at ``seat`` of the
    floor's table ``table`` (its index, from 0) every round; his wagers carry ``player_id``
    when given. His own random stream (``seed``) decides when he sees the card, so the
    table's deal is that of the same floor without him."""

    table: int
    seat: int
    sees: float
    player_id: str | None = None
    seed: int = 0
    rng: random.Random = field(init=False, repr=False)
    player: Player = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 <= self.sees <= 1:
            raise ValueError(f"hole-carder: sees {self.sees:g} is not in [0, 1]")
        if not 1 <= self.seat <= 7:
            raise ValueError(f"hole-carder: seat {self.seat} is not 1 to 7")
        self.rng = random.Random(self.seed)
        self.player = Player(2500, 0.0, 0.0, 100, False)

    def sit(self, seats: dict[int, Player]) -> dict[int, Player]:
        """The round's seats with him in his."""
        return dict(sorted({**seats, self.seat: self.player}.items()))

    def looks(self) -> bool:
        """Whether he sees the dealer's first card this round."""
        return self.rng.random() < self.sees


def parse_hole_carder(text: str) -> HoleCarder:
    """``TABLE:SEAT:P[:PLAYER_ID]`` (table from 0, seat 1-7, P from 0 to 1): a hole-carder;
    ``ValueError`` naming the text and what is wrong."""
    parts = text.split(":", 3)
    if len(parts) < 3:
        raise ValueError(f"hole-carder {text!r}: not TABLE:SEAT:P[:PLAYER_ID]")
    try:
        table, seat, sees = int(parts[0]), int(parts[1]), float(parts[2])
    except ValueError:
        raise ValueError(
            f"hole-carder {text!r}: TABLE and SEAT are whole numbers, P a share from 0 to 1"
        ) from None
    player_id = parts[3] if len(parts) == 4 else None
    if player_id is not None and not (0 < len(player_id) <= 64 and player_id.isprintable()):
        raise ValueError(f"hole-carder {text!r}: PLAYER_ID is 1 to 64 printable characters")
    try:
        return HoleCarder(table, seat, sees, player_id, seed=table * 8 + seat)
    except ValueError as exc:
        raise ValueError(
            f"hole-carder {text!r}: {str(exc).removeprefix('hole-carder: ')}"
        ) from None


class Seating:
    """Seats 1..7, each empty or holding a player; a Markov chain between rounds."""

    def __init__(self, rng: random.Random, max_seats: int = 7) -> None:
        self.rng = rng
        self.seats: dict[int, Player] = {}
        for seat in range(1, max_seats + 1):
            if rng.random() < 0.5:
                self.seats[seat] = self._new_player()
        if not self.seats:
            self.seats[rng.randint(1, max_seats)] = self._new_player()
        self.max_seats = max_seats

    def _new_player(self) -> Player:
        rng = self.rng
        return Player(
            unit=rng.choice(UNITS),
            side_bet_rate=rng.choice((0.0, 0.2, 0.5, 0.9)),
            progressive_rate=rng.choice((0.0, 0.0, 0.3, 0.8)),
            progressive_chip=rng.choice((100, 100, 100, 500)),
            side_bet_only=rng.random() < 0.05,
        )

    def next_round(self) -> dict[int, Player]:
        """Players leave (3%) and arrive (4% per empty seat); at least one stays."""
        for seat in list(self.seats):
            if self.rng.random() < 0.03 and len(self.seats) > 1:
                del self.seats[seat]
        for seat in range(1, self.max_seats + 1):
            if seat not in self.seats and self.rng.random() < 0.04:
                self.seats[seat] = self._new_player()
        return dict(sorted(self.seats.items()))
