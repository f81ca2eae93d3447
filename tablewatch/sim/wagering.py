"""Betting: the players' wagers (the game's), the lockout, and the errors made around them.

Each seated player bets as the game's simulator says; a side wager may be
placed in two steps or taken back before the lockout. An injected error
first gets the wagers it needs (a progressive wager for a jackpot, ...).
At the lockout the progressive count is verified (miscounted for an
injected PROGRESSIVE_COUNT_MISMATCH) and the meter grows; an injected
BET_AFTER_LOCKOUT places a side wager after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tablewatch.sim.dealing import Wagers
    from tablewatch.sim.injections import RoundPlan
    from tablewatch.sim.players import Player
    from tablewatch.sim.table_state import SimTable

JACKPOTS = ("JACKPOT_PAID_FROM_INVENTORY", "JACKPOT_NOT_VALIDATED")


def place_wagers(table: SimTable, seats: dict[int, Player], plan: RoundPlan) -> Wagers:
    """Every seat's wagers, placed (the events); what is on the layout at the lockout."""
    game = table.game
    wagers: Wagers = {}
    for seat, player in seats.items():
        game.seat_wagers(table, seat, player, wagers)
    force_for_injection(table, seats, wagers, plan)
    table.pause(2_000, 8_000)
    rng = table.rng
    side = game.side_bets
    for (seat, bet), amount in wagers.items():
        if rng.random() < 0.03 and amount >= 200 and bet in side:
            half = amount // 2
            table.t.wager(seat, bet, half, table.player_id(seat))
            table.t.wager(seat, bet, amount - half, table.player_id(seat))  # added to
        else:
            table.t.wager(seat, bet, amount, table.player_id(seat))
    removable = [k for k in wagers if k[1] in side]
    if removable and rng.random() < 0.03:
        seat, bet = rng.choice(removable)
        if game.may_remove(wagers, seat):
            table.t.wager_removed(seat, bet)
            del wagers[(seat, bet)]
    return wagers


def force_for_injection(
    table: SimTable, seats: dict[int, Player], wagers: Wagers, plan: RoundPlan
) -> None:
    """Give an injected error the situation it needs (a jackpot, an Envy Bonus due, ...)."""
    inject = plan.inject
    if inject is None:
        return
    rng = table.rng
    game = table.game
    seat_list = sorted(seats)
    if inject.code in JACKPOTS:
        seat = rng.choice(seat_list)
        wagers[(seat, "progressive")] = seats[seat].progressive_chip
        plan.rigged = game.jackpot_hand(seats, seat, wagers)
        inject.seat, inject.bet = seat, "progressive"
    elif inject.code == "ENVY_BONUS_WRONG" and len(seat_list) >= 2:
        holder, receiver = rng.sample(seat_list, 2)
        wagers[(receiver, "progressive")] = seats[receiver].progressive_chip
        plan.rigged = game.envy_hand(seats, holder, wagers)
        inject.seat = receiver
    elif inject.code == "ENVY_BONUS_WRONG":
        seat = seat_list[0]
        wagers[(seat, "progressive")] = seats[seat].progressive_chip
        inject.seat = seat
    elif inject.code == "PROGRESSIVE_COUNT_MISMATCH":
        if not any(bet == "progressive" for _, bet in wagers):
            seat = seat_list[0]
            wagers[(seat, "progressive")] = seats[seat].progressive_chip
    else:
        game.force_for_injection(table, seats, wagers, plan)


def lockout(table: SimTable, wagers: Wagers, plan: RoundPlan) -> None:
    """No more bets: the progressive count, the meter, and a late wager if injected."""
    table.pause(1_000, 5_000)
    code = plan.code
    accepted = sum(1 for _, bet in wagers if bet == "progressive")
    chips = accepted
    if code == "PROGRESSIVE_COUNT_MISMATCH":
        chips = accepted + 1 if accepted == 0 or table.rng.random() < 0.5 else accepted - 1
        table.record("PROGRESSIVE_COUNT_MISMATCH")
    if code == "SEQUENCE_GAP":
        table.t.skip_seq(table.rng.randint(1, 3))
        table.record("SEQUENCE_GAP")
    table.t.lockout(accepted, chips)
    rate = table.config.progressive_rate
    if accepted and rate:
        total = sum(a for (_, bet), a in wagers.items() if bet == "progressive")
        table.meter += int(total * rate * (1 + table.meter_drift))
    if code == "BET_AFTER_LOCKOUT":
        late_wager(table, wagers)


def late_wager(table: SimTable, wagers: Wagers) -> None:
    """A side wager placed after the lockout (an injected BET_AFTER_LOCKOUT)."""
    rng = table.rng
    seat = rng.choice(sorted({s for s, _ in wagers}))
    bet = rng.choice(table.game.late_bets(table.config))
    amount = rng.choice((100, 500))
    table.pause(200, 2_000)
    table.t.wager(seat, bet, amount)
    wagers[(seat, bet)] = wagers.get((seat, bet), 0) + amount
    table.record("BET_AFTER_LOCKOUT", seat, bet)
