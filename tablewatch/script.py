"""Writing protocol events for one table in a few calls: tests, examples, the simulator.

:class:`TableScript` numbers ``seq`` and ``event_id`` and advances the clock
by itself, so a round reads like the dealer's procedure::

    t = TableScript("T-07", start="2026-11-29T20:00:00.000Z")
    t.round_start("R-1", deck_id="D-1")
    t.wager(2, "ante", 2500)
    ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from tablewatch.rules import events as ev
from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import ms_to_ts, ts_to_ms


class TableScript:
    def __init__(
        self,
        table_id: str,
        *,
        start: str = "2026-11-29T20:00:00.000Z",
        step_ms: int = 500,
        first_seq: int = 1,
        id_prefix: str | None = None,
        new_id: Callable[[], str] | None = None,
    ) -> None:
        self.table_id = table_id
        self.now_ms = ts_to_ms(start)
        self.step_ms = step_ms
        self.seq = first_seq
        self.round_id: str | None = None
        self.events: list[ev.AnyEvent] = []
        self._prefix = id_prefix or table_id
        self._count = 0
        self._new_id = new_id

    # ---- clock and numbering ----------------------------------------------

    def drain(self) -> list[ev.AnyEvent]:
        """The events written so far, forgetting them (for streaming long runs)."""
        out, self.events = self.events, []
        return out

    def wait(self, ms: int) -> TableScript:
        self.now_ms += ms
        return self

    def skip_seq(self, n: int = 1) -> TableScript:
        """Lose ``n`` events: the next event's seq jumps."""
        self.seq += n
        return self

    def _common(self, ts_ms: int | None = None) -> dict[str, Any]:
        if ts_ms is None:
            self.now_ms += self.step_ms
            ts_ms = self.now_ms
        self._count += 1
        common = {
            "v": 1,
            "event_id": self._new_id() if self._new_id else f"{self._prefix}-e{self._count}",
            "table_id": self.table_id,
            "seq": self.seq,
            "ts": ms_to_ts(ts_ms),
        }
        self.seq += 1
        return common

    def _emit(self, cls: type[ev.Event], at_ms: int | None = None, **fields: Any) -> ev.AnyEvent:
        if issubclass(cls, ev.RoundEvent) and "round_id" not in fields:
            fields["round_id"] = self.round_id
        event: ev.AnyEvent = cls(**self._common(at_ms), **fields)  # type: ignore[assignment]
        self.events.append(event)
        return event

    def resend(self, event: ev.AnyEvent) -> ev.AnyEvent:
        """Send an event again, unchanged (a duplicate)."""
        self.events.append(event)
        return event

    # ---- table events -------------------------------------------------------

    def table_open(self, game: str, config: str = "default") -> ev.AnyEvent:
        return self._emit(ev.TableOpen, game=game, config=config)

    def table_close(self) -> ev.AnyEvent:
        return self._emit(ev.TableClose)

    def deck_in(self, deck_id: str, dealing: str = "hand") -> ev.AnyEvent:
        return self._emit(ev.DeckIn, deck_id=deck_id, dealing=dealing)

    def deck_out(self, deck_id: str, reason: str = "scheduled change") -> ev.AnyEvent:
        return self._emit(ev.DeckOut, deck_id=deck_id, reason=reason)

    def shuffle(
        self, deck_id: str, card_count: int | None = None, method: str = "automated"
    ) -> ev.AnyEvent:
        return self._emit(ev.Shuffle, deck_id=deck_id, method=method, card_count=card_count)

    def device_fault(self, device: str, fault: str = "jam") -> ev.AnyEvent:
        return self._emit(ev.DeviceFault, device=device, fault=fault)

    def meter(self, amount: int) -> ev.AnyEvent:
        return self._emit(ev.Meter, amount=amount)

    def dealer_change(self, dealer_id: str) -> ev.AnyEvent:
        return self._emit(ev.DealerChange, dealer_id=dealer_id)

    # ---- round events -------------------------------------------------------

    def round_start(self, round_id: str, deck_id: str, dealer_id: str = "DL-1") -> ev.AnyEvent:
        self.round_id = round_id
        return self._emit(ev.RoundStart, deck_id=deck_id, dealer_id=dealer_id)

    def wager(self, seat: int, bet: str, amount: int, player_id: str | None = None) -> ev.AnyEvent:
        return self._emit(ev.Wager, seat=seat, bet=bet, amount=amount, player_id=player_id)

    def wager_removed(self, seat: int, bet: str) -> ev.AnyEvent:
        return self._emit(ev.WagerRemoved, seat=seat, bet=bet)

    def lockout(self, accepted: int = 0, chips: int | None = None) -> ev.AnyEvent:
        return self._emit(
            ev.Lockout,
            progressive_accepted=accepted,
            progressive_chips=accepted if chips is None else chips,
        )

    def card(self, to: str, card: str, face_up: bool = False) -> ev.AnyEvent:
        return self._emit(ev.CardDealt, to=to, card=card, face_up=face_up)

    def cards(self, to: str, cards: Iterable[str], face_up: bool = False) -> None:
        for card in cards:
            self.card(to, card, face_up)

    def decision(
        self, seat: int, action: str, bet: str | None = None, amount: int | None = None
    ) -> ev.AnyEvent:
        return self._emit(ev.Decision, seat=seat, action=action, bet=bet, amount=amount)

    def reveal(self, target: str, index: int | None = None) -> ev.AnyEvent:
        return self._emit(ev.Reveal, target=target, index=index)

    def stub_count(self, count: int) -> ev.AnyEvent:
        return self._emit(ev.StubCount, count=count)

    def card_exposed(self, to: str, card: str) -> ev.AnyEvent:
        return self._emit(ev.CardExposed, to=to, card=card)

    def settle(
        self,
        seat: int,
        bet: str,
        result: str,
        paid: int = 0,
        *,
        paid_from: str | None = None,
        meter: int | None = None,
        validated_by: str | None = None,
    ) -> ev.AnyEvent:
        return self._emit(
            ev.Settle,
            seat=seat,
            bet=bet,
            result=result,
            paid=paid,
            paid_from=paid_from,
            meter=meter,
            validated_by=validated_by,
        )

    def envy_payout(self, seat: int, for_seat: int, paid: int) -> ev.AnyEvent:
        return self._emit(ev.EnvyPayout, seat=seat, for_seat=for_seat, paid=paid)

    def void(self, reason: str) -> ev.AnyEvent:
        return self._emit(ev.Void, reason=reason)

    def round_end(self) -> ev.AnyEvent:
        event = self._emit(ev.RoundEnd)
        self.round_id = None
        return event

    # ---- output -------------------------------------------------------------

    def jsonl(self) -> bytes:
        return b"".join(encode_event(e) + b"\n" for e in self.events)

    @staticmethod
    def encode(event: ev.AnyEvent) -> bytes:
        return encode_event(event)
