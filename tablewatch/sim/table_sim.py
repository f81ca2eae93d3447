"""One simulated table: decks, shuffles, meters, dealers, players, and rounds played by the rules.

Every round is settled with the rules engine's own expected settlement, so a
clean round is right by construction; an injected error changes one thing
and is written to the truth list. (The simulator cannot catch a settlement
error that it shares with the audit: golden rounds and published house
edges check the math.)
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

from tablewatch.rules.cards import card_text
from tablewatch.rules.config import TableConfig
from tablewatch.rules.events import AnyEvent, AnyRoundEvent, CardDealt, RoundEvent, ms_to_ts
from tablewatch.rules.round import fold_round
from tablewatch.rules.round_view import RoundView, view_round
from tablewatch.rules.settlement import Expected, Settlement, expected_settlement
from tablewatch.script import TableScript
from tablewatch.sim import strategy
from tablewatch.sim.dealing import Deal, deal, deal_targets
from tablewatch.sim.injections import Injection, applicable, choose_injection
from tablewatch.sim.players import Player, Seating
from tablewatch.sim.rare_hands import rare_four_card_poker, rare_let_it_ride

HOUR_MS = 3_600_000
DECK_LIMIT_MS = {"hand": 4 * HOUR_MS, "manual_shoe": 8 * HOUR_MS, "automated_shoe": 8 * HOUR_MS}
DECK_CHANGE_MARGIN_MS = 20 * 60_000
FLOORPERSONS = ("FL-11", "FL-12", "FL-13")
LIR_SIDE = ("five_card_bonus", "three_card_bonus")


@dataclass(frozen=True, slots=True)
class Truth:
    table_id: str
    round_id: str | None
    check: str
    seat: int | None = None
    bet: str | None = None


@dataclass(slots=True)
class RoundPlan:
    """What happens this round beyond clean play."""

    inject: Injection | None = None
    rigged: dict[str, list[int]] = field(default_factory=dict)
    natural: str | None = None  # a correctly handled irregularity: misdeal, shoe_fault, face_up


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
        self.config = config
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
        self.game = config.game
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
        self.stubless = 0
        self.stub_due = self.rng.randint(1, 4)
        self.forgetting_stub = False
        self.face_up_card: int | None = None

    # ---- helpers ------------------------------------------------------------------

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _pause(self, low_ms: int, high_ms: int) -> None:
        self.t.wait(self.rng.randint(low_ms, high_ms))

    @property
    def dealer_id(self) -> str:
        return f"DL-{self.config.table_id}-{self.dealer_no}"

    def _record(self, check: str, seat: int | None = None, bet: str | None = None) -> None:
        """The truth: this round (the one being played) has this error."""
        self.truth.append(Truth(self.config.table_id, f"R-{self.rounds}", check, seat, bet))

    def _new_deck(self) -> None:
        self.deck_no += 1
        self.deck_id = f"{self.config.table_id}-D{self.deck_no}"
        self.t.deck_in(self.deck_id, self.dealing)
        self.deck_in_ms = self.t.now_ms

    def _shuffle(self, count: int | None = None) -> None:
        if count is None and self.config.counting_shuffler:
            count = 52
        method = (
            "manual" if self.dealing == "manual_shoe" and self.rng.random() < 0.3 else "automated"
        )
        self.t.shuffle(self.deck_id, count, method)

    # ---- the table's life ------------------------------------------------------------

    def open(self) -> list[AnyEvent]:
        self.t.table_open(self.game, f"{self.config.table_id}-rules")
        self.t.dealer_change(self.dealer_id)
        self._new_deck()
        self._shuffle()
        return self.t.drain()

    def close(self) -> list[AnyEvent]:
        self._pause(5_000, 30_000)
        self.t.table_close()
        return self.t.drain()

    def play(self, rounds: int) -> Iterator[list[AnyEvent]]:
        for _ in range(rounds):
            self.play_round()
            yield self.t.drain()

    # ---- one round -----------------------------------------------------------------

    def play_round(self) -> None:
        self.rounds += 1
        plan = self._plan()
        self._between_rounds(plan)
        self.t.round_start(f"R-{self.rounds}", self.deck_id, self.dealer_id)
        if plan.inject and plan.inject.code == "DECK_CHANGE_OVERDUE":
            self._record("DECK_CHANGE_OVERDUE")
        if self.stubless == 4 and self.forgetting_stub:
            self._record("STUB_COUNT_MISSING")
        seats = self.seating.next_round()
        wagers = self._wagers(seats, plan)
        self._lockout(wagers, plan)
        dealt = self._deal(seats, wagers, plan)
        counted = self._stub_count(dealt, plan)
        self._update_stub_cadence(counted)
        if plan.natural in ("misdeal", "shoe_fault") or (
            plan.inject and plan.inject.code == "VOID_NOT_RETURNED"
        ):
            self._void(wagers, plan)
        else:
            self._decide(seats, wagers, dealt, plan)
            self._settle(plan)
        if plan.inject and plan.inject.code == "ROUND_INCOMPLETE":
            self._record("ROUND_INCOMPLETE")
            self.t.round_id = None
        else:
            self._pause(2_000, 6_000)
            self.t.round_end()
        self._pause(3_000, 15_000)

    def _plan(self) -> RoundPlan:
        plan = RoundPlan()
        landing = self.forgetting_stub and self.stubless == 4
        if not landing and self.rng.random() < self.error_rate:
            options = applicable(self.config, forgetting_stub=self.forgetting_stub)
            plan.inject = choose_injection(self.rng, options)
            if plan.inject.code == "STUB_COUNT_MISSING":
                self.forgetting_stub = True
                plan.inject = None  # the finding lands on the fifth round without a count
        elif not landing:
            roll = self.rng.random()
            if roll < 0.01:
                plan.natural = "misdeal"
            elif roll < 0.02 and self.dealing == "automated_shoe":
                plan.natural = "shoe_fault"
            elif roll < 0.03:
                plan.natural = "face_up"
        if self.jackpot_rate and self.rng.random() < self.jackpot_rate and plan.natural is None:
            plan.rigged = {"rare": []}  # resolved once seats are known
        return plan

    def _between_rounds(self, plan: RoundPlan) -> None:
        self._pause(1_000, 4_000)
        code = plan.inject.code if plan.inject else None
        if self.rng.random() < 0.005:
            self._pause(HOUR_MS // 2, 3 * HOUR_MS)  # the table stood idle
        limit = DECK_LIMIT_MS[self.dealing]
        if self.t.now_ms - self.deck_in_ms > limit - DECK_CHANGE_MARGIN_MS:
            self.t.deck_out(self.deck_id, "scheduled change")
            self._new_deck()
        if code == "DECK_CHANGE_OVERDUE":  # the deck stays past its deadline
            age = self.t.now_ms - self.deck_in_ms
            self.t.wait(limit - age + self.rng.randint(60_000, 30 * 60_000))
        if self.rounds % 60 == 0:
            self.dealer_no += 1
            self.t.dealer_change(self.dealer_id)
        if self.rng.random() < 0.01:
            self.t.device_fault("shuffler", self.rng.choice(("jam", "stopped", "incomplete")))
        if code == "SHUFFLER_COUNT_MISMATCH":
            self._shuffle(self.rng.choice((50, 51, 53)))
            self._record("SHUFFLER_COUNT_MISMATCH")
        elif self.config.counting_shuffler and code is None and self.rng.random() < 0.005:
            self._shuffle(51)  # a miscount, handled right: the deck leaves the table
            self.t.deck_out(self.deck_id, "shuffler counted 51 cards")
            self._new_deck()
            self._shuffle()
        else:
            self._shuffle()
        if self.config.progressive_reset is not None and self.meter != self.meter_sent:
            self.t.meter(self.meter)
            self.meter_sent = self.meter

    # ---- betting ---------------------------------------------------------------------

    def _wagers(self, seats: dict[int, Player], plan: RoundPlan) -> dict[tuple[int, str], int]:
        wagers: dict[tuple[int, str], int] = {}
        offered = self.config.paytables
        for seat, player in seats.items():
            rng = self.rng
            if self.game == "let_it_ride":
                for bet in ("bet1", "bet2", "bet3"):
                    wagers[(seat, bet)] = player.unit
                for bet in (*LIR_SIDE, "six_card_bonus"):
                    if bet in offered and rng.random() < player.side_bet_rate * 0.5:
                        wagers[(seat, bet)] = rng.choice((100, 500, 500, 1000))
                for bet in ("progressive", "five_card_progressive"):
                    if bet in offered and rng.random() < player.progressive_rate:
                        wagers[(seat, bet)] = player.progressive_chip
            else:
                if not player.aces_up_only:
                    wagers[(seat, "ante")] = player.unit
                if player.aces_up_only or rng.random() < player.side_bet_rate:
                    wagers[(seat, "aces_up")] = rng.choice((500, 1000, player.unit))
                if "progressive" in offered and rng.random() < player.progressive_rate:
                    wagers[(seat, "progressive")] = player.progressive_chip
        self._force_for_injection(seats, wagers, plan)
        self._pause(2_000, 8_000)
        for (seat, bet), amount in wagers.items():
            if self.rng.random() < 0.03 and amount >= 200 and bet in (*LIR_SIDE, "aces_up"):
                half = amount // 2
                self.t.wager(seat, bet, half)
                self.t.wager(seat, bet, amount - half)  # added to before the lockout
            else:
                self.t.wager(seat, bet, amount)
        removable = [k for k in wagers if k[1] in LIR_SIDE or k[1] == "aces_up"]
        if removable and self.rng.random() < 0.03:
            seat, bet = self.rng.choice(removable)
            if not (self.game == "four_card_poker" and (seat, "ante") not in wagers):
                self.t.wager_removed(seat, bet)
                del wagers[(seat, bet)]
        return wagers

    def _force_for_injection(
        self, seats: dict[int, Player], wagers: dict[tuple[int, str], int], plan: RoundPlan
    ) -> None:
        """Give an injected error the situation it needs (a jackpot, an Envy Bonus due)."""
        inject = plan.inject
        if inject is None:
            return
        seat_list = sorted(seats)
        if inject.code in ("JACKPOT_PAID_FROM_INVENTORY", "JACKPOT_NOT_VALIDATED"):
            seat = self.rng.choice(seat_list)
            wagers[(seat, "progressive")] = seats[seat].progressive_chip
            if self.game == "four_card_poker":
                wagers.setdefault((seat, "ante"), seats[seat].unit)
                plan.rigged = {f"seat:{seat}": list(_cards("Ah Ad Ac As"))}
            else:
                plan.rigged = {f"seat:{seat}": list(_cards("As Ks Qs"))}
            inject.seat, inject.bet = seat, "progressive"
        elif inject.code == "ENVY_BONUS_WRONG" and len(seat_list) >= 2:
            holder, receiver = self.rng.sample(seat_list, 2)
            wagers[(receiver, "progressive")] = seats[receiver].progressive_chip
            if self.game == "four_card_poker":
                wagers.setdefault((holder, "ante"), seats[holder].unit)
                plan.rigged = {f"seat:{holder}": list(_cards("Kh Kd Kc Ks"))}
            else:
                plan.rigged = {f"seat:{holder}": list(_cards("Ah Kh Qh"))}
            inject.seat = receiver
        elif inject.code == "ENVY_BONUS_WRONG":
            seat = seat_list[0]
            wagers[(seat, "progressive")] = seats[seat].progressive_chip
            inject.seat = seat
        elif inject.code == "PROGRESSIVE_COUNT_MISMATCH":
            if not any(bet == "progressive" for _, bet in wagers):
                seat = seat_list[0]
                wagers[(seat, "progressive")] = seats[seat].progressive_chip
        elif inject.code == "UNEQUAL_BETS":
            seat = self.rng.choice(seat_list)
            bet = self.rng.choice(("bet2", "bet3"))
            wagers[(seat, bet)] = wagers[(seat, "bet1")] + self.rng.choice((-250, 500, 1000))
            self._record("UNEQUAL_BETS", seat)
        elif inject.code == "PLAY_WAGER_OUT_OF_RANGE":
            seat = self.rng.choice(seat_list)
            wagers.setdefault((seat, "ante"), max(seats[seat].unit, 200))
            plan.rigged = {f"seat:{seat}": list(_cards("Th Td"))}
            inject.seat, inject.bet = seat, "play"

    def _lockout(self, wagers: dict[tuple[int, str], int], plan: RoundPlan) -> None:
        self._pause(1_000, 5_000)
        accepted = sum(1 for _, bet in wagers if bet == "progressive")
        chips = accepted
        if plan.inject and plan.inject.code == "PROGRESSIVE_COUNT_MISMATCH":
            chips = accepted + 1 if accepted == 0 or self.rng.random() < 0.5 else accepted - 1
            self._record("PROGRESSIVE_COUNT_MISMATCH")
        if plan.inject and plan.inject.code == "SEQUENCE_GAP":
            self.t.skip_seq(self.rng.randint(1, 3))
            self._record("SEQUENCE_GAP")
        self.t.lockout(accepted, chips)
        if accepted and self.config.progressive_rate:
            total = sum(a for (_, bet), a in wagers.items() if bet == "progressive")
            self.meter += int(total * self.config.progressive_rate)
        if plan.inject and plan.inject.code == "BET_AFTER_LOCKOUT":
            self._late_wager(wagers)

    def _late_wager(self, wagers: dict[tuple[int, str], int]) -> None:
        seat = self.rng.choice(sorted({s for s, _ in wagers}))
        options = (
            ["aces_up"]
            if self.game == "four_card_poker"
            else [b for b in LIR_SIDE if b in self.config.paytables]
        )
        bet = self.rng.choice(options)
        amount = self.rng.choice((100, 500))
        self._pause(200, 2_000)
        self.t.wager(seat, bet, amount)
        wagers[(seat, bet)] = wagers.get((seat, bet), 0) + amount
        self._record("BET_AFTER_LOCKOUT", seat, bet)

    # ---- dealing ---------------------------------------------------------------------

    def _deal(
        self, seats: dict[int, Player], wagers: dict[tuple[int, str], int], plan: RoundPlan
    ) -> list[Deal]:
        betting = sorted({seat for seat, _ in wagers})
        bonus = any(bet == "six_card_bonus" for _, bet in wagers)
        targets = deal_targets(self.game, self.dealing, betting, bonus)
        rigged = plan.rigged
        if "rare" in rigged:
            seat = self.rng.choice(betting)
            maker = rare_four_card_poker if self.game == "four_card_poker" else rare_let_it_ride
            rigged = maker(self.rng, seat)
        face_up_card: int | None = None
        if plan.natural == "face_up":
            face_up_card = self.rng.randrange(52)
            rigged = {k: v for k, v in rigged.items() if face_up_card not in v}
        dealt = deal(self.rng, targets, rigged, exclude=face_up_card)
        if plan.natural == "misdeal":
            seat = self.rng.choice(betting)
            extra = next(
                c for c in range(52) if c not in {d[1] for d in dealt} and c != face_up_card
            )
            at = max(i for i, d in enumerate(dealt) if d[0] == f"seat:{seat}")
            dealt.insert(at + 1, (f"seat:{seat}", extra, False))
        if plan.inject and plan.inject.code == "DUPLICATE_CARD":
            seat_positions = [i for i, d in enumerate(dealt) if d[0].startswith("seat:")]
            i, j = sorted(self.rng.sample(seat_positions, 2)) if len(seat_positions) > 1 else (0, 1)
            to, _, up = dealt[j]
            dealt[j] = (to, dealt[i][1], up)
            self._record("DUPLICATE_CARD")
        self._pause(500, 2_000)
        for n, (to, card, face_up) in enumerate(dealt):
            if face_up_card is not None and n == len(dealt) // 2:
                self.t.card_exposed("deck", card_text(face_up_card))
            if plan.natural == "shoe_fault" and n == len(dealt) // 2:
                self.t.device_fault(
                    "automated_shoe", self.rng.choice(("jam", "stopped", "incomplete"))
                )
                break
            self.t.card(to, card_text(card), face_up)
        self.face_up_card = face_up_card
        return dealt

    def _stub_count(self, dealt: list[Deal], plan: RoundPlan) -> bool:
        code = plan.inject.code if plan.inject else None
        due = not self.config.counting_shuffler and self.stubless + 1 >= self.stub_due
        wanted = code == "STUB_COUNT_MISMATCH" or (
            not self.forgetting_stub and (due or self.rng.random() < 0.05)
        )
        if not wanted or plan.natural == "shoe_fault":
            return False
        taken = len(dealt) + (1 if self.face_up_card is not None else 0)
        count = 52 - taken
        if code == "STUB_COUNT_MISMATCH":
            count += self.rng.choice((-2, -1, 1))
            self._record("STUB_COUNT_MISMATCH")
        self._pause(1_000, 4_000)
        self.t.stub_count(count)
        return True

    def _update_stub_cadence(self, counted: bool) -> None:
        if self.config.counting_shuffler:
            return
        if counted:
            self.stubless = 0
            self.stub_due = self.rng.randint(1, 4)
            return
        self.stubless += 1
        if self.stubless >= 5:
            self.stubless = 0
            self.forgetting_stub = False
            self.stub_due = self.rng.randint(1, 4)

    # ---- decisions, settlement, voids ---------------------------------------------------

    def _cards_of(self, dealt: list[Deal], to: str) -> list[int]:
        return [card for target, card, _ in dealt if target == to]

    def _decide(
        self,
        seats: dict[int, Player],
        wagers: dict[tuple[int, str], int],
        dealt: list[Deal],
        plan: RoundPlan,
    ) -> None:
        code = plan.inject.code if plan.inject else None
        if code == "ROUND_NOT_VOIDED":
            self._expose_early(dealt)
            self._record("ROUND_NOT_VOIDED")
        self._pause(3_000, 10_000)
        if self.game == "four_card_poker":
            self._decide_four_card_poker(wagers, dealt, plan)
        else:
            self._decide_let_it_ride(wagers, dealt, plan)

    def _expose_early(self, dealt: list[Deal]) -> None:
        if self.game == "four_card_poker":
            hidden = [c for to, c, up in dealt if to == "dealer" and not up]
        else:
            hidden = self._cards_of(dealt, "community")
        self.t.card_exposed(
            "dealer" if self.game == "four_card_poker" else "community",
            card_text(self.rng.choice(hidden)),
        )

    def _decide_four_card_poker(
        self, wagers: dict[tuple[int, str], int], dealt: list[Deal], plan: RoundPlan
    ) -> None:
        inject = plan.inject
        for seat in sorted({s for s, _ in wagers}):
            ante = wagers.get((seat, "ante"))
            if not ante:
                continue
            cards = self._cards_of(dealt, f"seat:{seat}")
            play = strategy.four_card_poker_play(cards, ante)
            if inject and inject.code == "PLAY_WAGER_OUT_OF_RANGE" and inject.seat == seat:
                play = 4 * ante if self.rng.random() < 0.7 or ante < 200 else ante // 2
                self._record("PLAY_WAGER_OUT_OF_RANGE", seat, "play")
            if play:
                self.t.decision(seat, "play", amount=play)
            else:
                self.t.decision(seat, "fold")
            self._pause(500, 3_000)
        self.t.reveal("dealer")

    def _decide_let_it_ride(
        self, wagers: dict[tuple[int, str], int], dealt: list[Deal], plan: RoundPlan
    ) -> None:
        inject = plan.inject
        seats = sorted({s for s, _ in wagers})
        community = self._cards_of(dealt, "community")
        late: tuple[int, str] | None = None
        if inject and inject.code == "LATE_WITHDRAWAL":
            late = (self.rng.choice(seats), self.rng.choice(("bet1", "bet2")))
        for index, bet in ((1, "bet1"), (2, "bet2")):
            for seat in seats:
                if (seat, bet) == late:
                    continue  # decides after the card is turned
                cards = self._cards_of(dealt, f"seat:{seat}")
                keep = (
                    strategy.let_it_ride_keeps_bet1(cards)
                    if bet == "bet1"
                    else strategy.let_it_ride_keeps_bet2([*cards, community[0]])
                )
                self.t.decision(seat, "ride" if keep else "pull", bet)
                self._pause(300, 2_000)
            self.t.reveal("community", index)
            if late is not None and late[1] == bet:
                self._pause(300, 1_500)
                self.t.decision(late[0], "pull", bet)
                self._record("LATE_WITHDRAWAL", late[0], bet)
            self._pause(1_000, 4_000)

    def _view(self) -> RoundView:
        round_id = self.t.round_id
        events: list[AnyRoundEvent] = [
            e for e in self.t.events if isinstance(e, RoundEvent) and e.round_id == round_id
        ]
        return view_round(fold_round(self.config.table_id, round_id or "", events))

    def _settle(self, plan: RoundPlan) -> None:
        view = self._view()
        settlement = expected_settlement(view, self.config)
        inject = plan.inject
        code = inject.code if inject else None
        lines = [
            e for e in settlement.lines.values() if not (e.optional and e.result != "returned")
        ]
        pulled = [e for e in lines if e.result == "returned"]
        lines = [e for e in lines if e.result != "returned"]
        lines += [e for e in pulled if self.rng.random() < 0.5]  # a `returned` line is optional
        target = self._pick_line(lines, settlement, code)
        for seat in sorted(
            {e.seat for e in lines} | {e.seat for e in settlement.envy}, reverse=True
        ):
            for line in sorted((e for e in lines if e.seat == seat), key=_bet_order):
                self._settle_line(line, settlement, code if line is target else None)
            for envy in settlement.envy:
                if envy.seat != seat:
                    continue
                paid = envy.paid
                if (
                    code == "ENVY_BONUS_WRONG"
                    and inject
                    and inject.seat == seat
                    and not inject.done
                ):
                    inject.done = True
                    self._record("ENVY_BONUS_WRONG", seat)
                    if self.rng.random() < 0.5:
                        continue  # forgotten
                    paid = paid // 2 or paid + 100
                self.t.envy_payout(seat, envy.for_seat, paid)
        if code == "ENVY_BONUS_WRONG" and inject and not inject.done:
            seat = inject.seat or 1
            self.t.envy_payout(seat, seat, 1000)  # for the player's own hand
            self._record("ENVY_BONUS_WRONG", seat)
        for seat, bet in _unpriced(view, settlement):
            self.t.settle(seat, bet, "returned")
        self._pause(500, 2_000)

    def _pick_line(
        self, lines: list[Expected], settlement: Settlement, code: str | None
    ) -> Expected | None:
        if code not in (
            "WRONG_PAYOUT",
            "UNSETTLED_WAGER",
            "JACKPOT_PAID_FROM_INVENTORY",
            "JACKPOT_NOT_VALIDATED",
        ):
            return None
        if code.startswith("JACKPOT"):
            # a meter share for the inventory rule (other progressive wins may come from it)
            wins = [
                e
                for e in lines
                if e.bet == "progressive"
                and e.result == "win"
                and (code == "JACKPOT_NOT_VALIDATED" or e.not_from_inventory_section)
            ]
            return wins[0] if wins else None
        capped = set(settlement.limits)
        pool = [
            e
            for e in lines
            if not (e.odds is not None and e.odds.is_meter and e.result == "win")
            and not (e.seat in capped and e.bet in ("bet1", "bet2", "bet3"))
            and not (code == "UNSETTLED_WAGER" and e.bet == "ante_bonus")
            and e.result != "returned"
        ]
        return self.rng.choice(pool) if pool else None

    def _settle_line(self, line: Expected, settlement: Settlement, inject: str | None) -> None:
        result = line.result
        meter = None
        extra: dict[str, object] = {}
        if line.result == "win" and line.odds is not None and line.odds.is_meter:
            meter = self.meter
            paid = line.odds.paid(line.stake, meter) or 0
            extra = {"paid_from": "cage", "meter": meter}
        else:
            paid = line.paid(None) or 0
        if line.validation_section and line.result == "win":
            extra["validated_by"] = self.rng.choice(FLOORPERSONS)
            extra.setdefault("paid_from", "table_inventory")
        limit = settlement.limits.get(line.seat)
        if limit is not None and line.bet in ("bet1", "bet2", "bet3") and result == "win":
            paid = self._capped_share(line, settlement)
        if inject == "WRONG_PAYOUT":
            if result == "win":
                paid = paid + line.stake if self.rng.random() < 0.5 else paid // 2
            else:
                result, paid = "win", line.stake
            self._record("WRONG_PAYOUT", line.seat, line.bet)
        elif inject == "JACKPOT_PAID_FROM_INVENTORY":
            extra["paid_from"] = "table_inventory"
            self._record("JACKPOT_PAID_FROM_INVENTORY", line.seat, line.bet)
        elif inject == "JACKPOT_NOT_VALIDATED":
            extra.pop("validated_by", None)
            self._record("JACKPOT_NOT_VALIDATED", line.seat, line.bet)
        elif inject == "UNSETTLED_WAGER":
            self._record("UNSETTLED_WAGER", line.seat, line.bet)
            if self.rng.random() < 0.5:
                return  # never settled
            self.t.settle(line.seat, line.bet, result, paid, **extra)  # type: ignore[arg-type]
        self.t.settle(line.seat, line.bet, result, paid, **extra)  # type: ignore[arg-type]
        if meter is not None:
            self.meter = self.config.progressive_reset or 0

    def _capped_share(self, line: Expected, settlement: Settlement) -> int:
        """Bets 1, 2, 3 of a hand over the payout limit: paid in order until the limit."""
        limit = settlement.limits[line.seat].limit
        before = 0
        for bet in ("bet1", "bet2", "bet3"):
            if bet == line.bet:
                break
            other = settlement.lines.get((line.seat, bet))
            if other is not None and other.result == "win":
                before += other.paid(None) or 0
        return max(0, min(line.paid(None) or 0, limit - before))

    def _void(self, wagers: dict[tuple[int, str], int], plan: RoundPlan) -> None:
        code = plan.inject.code if plan.inject else None
        if code == "VOID_NOT_RETURNED":
            self._expose_early_void()
        reason = {"misdeal": "misdeal: wrong number of cards", "shoe_fault": "automated shoe fault"}
        self._pause(2_000, 6_000)
        self.t.void(reason.get(plan.natural or "", "card exposed before its reveal"))
        wrong = self.rng.choice(sorted(wagers)) if code == "VOID_NOT_RETURNED" else None
        for seat, bet in sorted(wagers, reverse=True):
            if (seat, bet) == wrong:
                self.t.settle(seat, bet, "lose")
                self._record("VOID_NOT_RETURNED", seat, bet)
            else:
                self.t.settle(seat, bet, "returned")

    def _expose_early_void(self) -> None:
        target = "dealer" if self.game == "four_card_poker" else "community"
        hidden = [
            e.card
            for e in self.t.events
            if isinstance(e, CardDealt)
            and e.round_id == self.t.round_id
            and e.to == target
            and not e.face_up
        ]
        self.t.card_exposed(target, self.rng.choice(hidden))


BET_ORDER = (
    "bet1",
    "bet2",
    "bet3",
    "ante",
    "play",
    "ante_bonus",
    "aces_up",
    "five_card_bonus",
    "three_card_bonus",
    "progressive",
    "five_card_progressive",
    "five_card_hand_bonus",
    "six_card_bonus",
)


def _bet_order(line: Expected) -> int:
    return BET_ORDER.index(line.bet)


def _unpriced(view: RoundView, settlement: Settlement) -> list[tuple[int, str]]:
    """Wagers with no expected line: a hand (or the dealer's) holding a card twice.

    Such a hand has no rank (an injected DUPLICATE_CARD); the dealer hands its
    wagers back, so that the round's only finding is the duplicate card.
    """
    wagers = set(view.wagers)
    for seat, decisions in view.decisions.items():
        if any(d.action == "play" for d in decisions):
            wagers.add((seat, "play"))
    return sorted(k for k in wagers if k not in settlement.lines)


def _cards(text: str) -> list[int]:
    from tablewatch.rules.cards import parse_cards

    return list(parse_cards(text.split()))
