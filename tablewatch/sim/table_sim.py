"""One simulated table: its life (open, rounds, close) and the steps of one round, in order.

Every round is settled with the rules engine's own expected settlement, so a
clean round is right by construction; an injected error changes one thing
and is written to the truth list. (The simulator cannot catch a settlement
error that it shares with the audit: golden rounds and published house
edges check the math.) The steps live by concern: the deck
(:mod:`~tablewatch.sim.shoe`), the plan of injected errors
(:mod:`~tablewatch.sim.injections`), betting (:mod:`~tablewatch.sim.wagering`),
dealing (:mod:`~tablewatch.sim.dealing`), decisions
(:mod:`~tablewatch.sim.decisions`) and settlement (:mod:`~tablewatch.sim.settling`);
what differs by game, in the game's simulator (:mod:`tablewatch.sim.games`).
"""

from __future__ import annotations

from collections.abc import Iterator

from tablewatch.rules.events import AnyEvent
from tablewatch.rules.table_config import TableConfig
from tablewatch.sim import decisions, settling, shoe, wagering
from tablewatch.sim.dealing import deal_round
from tablewatch.sim.injections import RoundPlan, plan_round
from tablewatch.sim.table_state import SimTable, Truth

__all__ = ["TableSim", "Truth"]

HOUR_MS = shoe.HOUR_MS


class TableSim:
    def __init__(
        self,
        config: TableConfig,
        seed: int,
        start_ms: int,
        *,
        error_rate: float,
        jackpot_rate: float,
    ) -> None:
        self.table = SimTable(
            config, seed, start_ms, error_rate=error_rate, jackpot_rate=jackpot_rate
        )

    @property
    def truth(self) -> list[Truth]:
        return self.table.truth

    # ---- the table's life ------------------------------------------------------------

    def open(self) -> list[AnyEvent]:
        table = self.table
        table.t.table_open(table.rules.name, f"{table.config.table_id}-rules")
        table.t.dealer_change(table.dealer_id)
        shoe.new_deck(table)
        shoe.shuffle(table)
        return table.t.drain()

    def close(self) -> list[AnyEvent]:
        self.table.pause(5_000, 30_000)
        self.table.t.table_close()
        return self.table.t.drain()

    def play(self, rounds: int) -> Iterator[list[AnyEvent]]:
        for _ in range(rounds):
            self.play_round()
            yield self.table.t.drain()

    # ---- one round -----------------------------------------------------------------

    def play_round(self) -> None:
        table = self.table
        table.rounds += 1
        plan = plan_round(table)
        self._between_rounds(plan)
        table.t.round_start(table.round_id, table.deck_id, table.dealer_id)
        if plan.code == "DECK_CHANGE_OVERDUE":
            table.record("DECK_CHANGE_OVERDUE")
        if table.stubless == 4 and table.forgetting_stub:
            table.record("STUB_COUNT_MISSING")
        seats = table.seating.next_round()
        if table.hole_carder is not None:
            seats = table.hole_carder.sit(seats)
        wagers = wagering.place_wagers(table, seats, plan)
        wagering.lockout(table, wagers, plan)
        dealt = deal_round(table, wagers, plan)
        counted = shoe.count_stub(table, dealt, plan)
        shoe.update_stub_cadence(table, counted)
        if plan.natural in ("misdeal", "shoe_fault") or plan.code == "VOID_NOT_RETURNED":
            settling.void(table, wagers, plan)
        else:
            decisions.decide(table, wagers, dealt, plan)
            settling.settle(table, plan)
        if plan.code == "ROUND_INCOMPLETE":
            table.record("ROUND_INCOMPLETE")
            table.t.round_id = None
        else:
            table.pause(2_000, 6_000)
            table.t.round_end()
        table.pause(3_000, 15_000)

    def _between_rounds(self, plan: RoundPlan) -> None:
        """Idle time, the deck's schedule, the dealer's relief, the shuffle, the meter."""
        table = self.table
        rng = table.rng
        table.pause(1_000, 4_000)
        code = plan.code
        if rng.random() < 0.005:
            table.pause(HOUR_MS // 2, 3 * HOUR_MS)  # the table stood idle
        shoe.change_on_schedule(table, overdue=code == "DECK_CHANGE_OVERDUE")
        if table.rounds % 60 == 0:
            table.dealer_no += 1
            table.t.dealer_change(table.dealer_id)
        if rng.random() < 0.01:
            table.t.device_fault("shuffler", rng.choice(("jam", "stopped", "incomplete")))
        shoe.shuffle_for_round(table, code)
        if table.config.progressive_reset is not None and table.meter != table.meter_sent:
            table.t.meter(table.meter)
            table.meter_sent = table.meter
