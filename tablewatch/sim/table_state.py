"""One simulated table's state, read and changed by every step of its rounds.

The table's one random stream (``rng``) drives everything, event ids
included: same seed, same draws in the same order, same bytes.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass

from tablewatch.rules.events import ms_to_ts
from tablewatch.rules.table_config import TableConfig
from tablewatch.script import TableScript
from tablewatch.sim.games import SimulatedGame, simulated
from tablewatch.sim.players import HoleCarder, Seating


@dataclass(frozen=True, slots=True)
class Truth:
    """An injected error: the finding the audit must report for it."""

    table_id: str
    round_id: str | None
    check: str
    seat: int | None = None
    bet: str | None = None


class SimTable:
    """The table's configuration, game, random stream and script, and what carries over
    between rounds: decks, dealer, meter, stub counts, the truth so far."""

    def __init__(
        self,
        config: TableConfig,
        seed: int,
        start_ms: int,
        *,
        error_rate: float,
        jackpot_rate: float,
    ) -> None:
        self.config = config
        self.rules = config.rules
        self.game: SimulatedGame = simulated(config.game)
        self.rng = random.Random(seed)
        self.error_rate = error_rate
        self.jackpot_rate = jackpot_rate
        self.t = TableScript(
            config.table_id,
            start=ms_to_ts(start_ms),
            step_ms=400,
            first_seq=self.rng.randint(1, 9000),
            new_id=self._uuid,
        )
        self.dealing = config.dealing or "hand"
        self.seating = Seating(self.rng)
        self.truth: list[Truth] = []
        self.rounds = 0
        self.deck_no = 0
        self.deck_id = ""
        self.deck_in_ms = 0
        self.dealer_no = 1
        self.meter = config.progressive_reset or 0
        self.meter_sent: int | None = None
        self.stubless = 0  # rounds since the last stub count
        self.stub_due = self.rng.randint(1, 4)
        self.forgetting_stub = False  # an injected STUB_COUNT_MISSING under way
        self.face_up_card: int | None = None  # found face up in the deck this round
        self.hole_carder: HoleCarder | None = None  # an injected advantage player
        # patterns across rounds injected (sim/injections.py), each with its own random stream
        self.hold_drift: tuple[float, random.Random] | None = None  # share of rounds walked
        self.meter_drift = 0.0  # the meter grows by its rate times 1 + this
        self.favoured: tuple[int, float, random.Random] | None = None  # seat, share, stream

    def player_id(self, seat: int) -> str | None:
        """The tracking-card id the seat's wagers carry (the hole-carder's), if any."""
        carder = self.hole_carder
        return carder.player_id if carder is not None and carder.seat == seat else None

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def pause(self, low_ms: int, high_ms: int) -> None:
        self.t.wait(self.rng.randint(low_ms, high_ms))

    @property
    def round_id(self) -> str:
        """The round being played."""
        return f"R-{self.rounds}"

    @property
    def dealer_id(self) -> str:
        if self.favoured is not None and self.dealer_no % 2:
            return f"DL-{self.config.table_id}-C"  # the colluding dealer: every other down
        return f"DL-{self.config.table_id}-{self.dealer_no}"

    @property
    def colluding(self) -> bool:
        """The colluding dealer deals this round."""
        return self.favoured is not None and self.dealer_no % 2 == 1

    def record(self, check: str, seat: int | None = None, bet: str | None = None) -> None:
        """The truth: this round (the one being played) has this error."""
        self.truth.append(Truth(self.config.table_id, self.round_id, check, seat, bet))
