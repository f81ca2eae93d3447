"""What the simulator needs of a game beyond its rules descriptor: how it is played.

A game's simulator (one module per game in this package) says how its
tables are configured on the simulated floor, what players wager, how the
cards are dealt, which rare hands and rigged hands make its jackpots and
Envy Bonuses, and how players decide. Everything else (decks, injected
errors, settlement, voids) is common to all games and reads the game's
rules descriptor (:class:`~tablewatch.rules.game_rules.GameRules`).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from tablewatch.rules.cards import Card
from tablewatch.rules.game_rules import GameRules
from tablewatch.rules.table_config import TableConfig

if TYPE_CHECKING:
    from tablewatch.sim.dealing import Deal, Wagers
    from tablewatch.sim.injections import RoundPlan
    from tablewatch.sim.players import Player
    from tablewatch.sim.table_state import SimTable

Rigged = dict[str, list[Card]]  # cards placed first, by target ("seat:3", "community")


class SimulatedGame(ABC):
    """One game as the simulator plays it."""

    rules: GameRules  # the game's descriptor
    prefix: str  # of its table ids on the simulated floor ("LIR" -> "LIR-01")
    side_bets: tuple[str, ...]  # side wagers placed in two steps, taken back, or placed late
    hole_carding: bool = False  # an injected hole-carder (players.HoleCarder) plays it

    def late_bets(self, config: TableConfig) -> list[str]:
        """The side wagers the table offers (a late wager is one of them)."""
        return [bet for bet in self.side_bets if bet in config.paytables]

    def may_remove(self, wagers: Wagers, seat: int) -> bool:
        """Whether the seat may take a side wager back before the lockout."""
        return True

    @abstractmethod
    def floor_table(
        self, index: int, rng: random.Random, progressive: bool
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The configuration of the floor's table ``index`` (without its paytables, dealing
        and shuffler), and its paytables: ``progressive`` whether it offers a progressive."""

    @abstractmethod
    def seat_wagers(self, table: SimTable, seat: int, player: Player, wagers: Wagers) -> None:
        """The player's wagers this round, added to ``wagers``."""

    @abstractmethod
    def jackpot_hand(self, seats: dict[int, Player], seat: int, wagers: Wagers) -> Rigged:
        """The cards that win the progressive's meter at ``seat`` (with the wagers needed)."""

    @abstractmethod
    def envy_hand(self, seats: dict[int, Player], holder: int, wagers: Wagers) -> Rigged:
        """The cards at ``holder`` that earn the other players an Envy Bonus."""

    @abstractmethod
    def force_for_injection(
        self, table: SimTable, seats: dict[int, Player], wagers: Wagers, plan: RoundPlan
    ) -> None:
        """Give an injected error of the game's own checks the situation it needs (nothing for
        another error)."""

    @abstractmethod
    def deal_targets(
        self, dealing: str, seats: list[int], wagers: Wagers
    ) -> list[tuple[str, bool]]:
        """Where each card of the round goes, in dealing order: (to, face_up)."""

    @abstractmethod
    def rare_hand(self, rng: random.Random, seat: int) -> Rigged:
        """A rare hand at ``seat`` (``--jackpot-rate``): a jackpot, an Envy Bonus, a limit."""

    @abstractmethod
    def decide(self, table: SimTable, wagers: Wagers, dealt: list[Deal], plan: RoundPlan) -> None:
        """The players' decisions and the reveals (the events), as the game is played."""
