"""One table's state across rounds: the open round, decks, stub cadence, seq, duplicates,
the round ids it used.

:class:`TableState` folds a table's events in ``seq`` order. A round is judged
when its ``round_end`` arrives (or found incomplete when the next round
starts, the table closes, or the input ends). Memory per table is bounded:
the duplicate window, the round-id window and the list of recently closed
rounds have fixed sizes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, cast

from tablewatch.rules.checks import (
    deck_change_overdue,
    round_id_reused,
    sequence_gap,
    shuffler_count_mismatch,
    stub_count_missing,
)
from tablewatch.rules.checks.table_level import table_finding
from tablewatch.rules.events import (
    ROUND_EVENT_TYPES,
    AnyEvent,
    AnyRoundEvent,
    DeckIn,
    DeckOut,
    DeviceFault,
    Meter,
    RoundEnd,
    RoundEvent,
    RoundStart,
    Shuffle,
    TableClose,
    TableOpen,
    event_type,
)
from tablewatch.rules.findings import Finding
from tablewatch.rules.id_window import IdWindow
from tablewatch.rules.judge import RoundResult, judge_round
from tablewatch.rules.round import Round
from tablewatch.rules.round_ids import RoundIdWindow, RoundOpening, WindowRound
from tablewatch.rules.table_config import TableConfig

# What folding a table's events gives: a judged round, or a finding outside any round.
RoundOrFinding = RoundResult | Finding

# Round events that neither open nor close a round.
_MID_ROUND: Final[frozenset[type]] = ROUND_EVENT_TYPES - {RoundStart, RoundEnd}

DEDUP_WINDOW = 50_000  # event_ids remembered per table
ROUND_ID_WINDOW = 50_000  # round ids remembered per table (the rounds last opened)
CLOSED_WINDOW: Final = 64  # round_ids remembered per table after their round_end


@dataclass(slots=True)
class DeckState:
    dealing: str
    in_ts: str
    in_event_id: str
    shuffle: Shuffle | None = None
    shuffle_reported: bool = False
    overdue_reported: bool = False


@dataclass(slots=True)
class TableState:
    table_id: str
    config: TableConfig
    # The seq expected next, -1 before any: a plain int, so that the fold's fast path
    # neither boxes nor adds Python ints (compiled); ``last_seq`` reads and sets it.
    _next_seq: int = -1
    open_round: Round | None = None
    attached: list[Finding] = field(default_factory=list)  # for the open round
    decks: dict[str, DeckState] = field(default_factory=dict)
    meter: int | None = None
    rounds_without_stub: int = 0
    stubless_starts: list[str] = field(default_factory=list)
    duplicates: int = 0
    window: IdWindow = field(default_factory=lambda: IdWindow(DEDUP_WINDOW))
    round_ids: RoundIdWindow = field(default_factory=lambda: RoundIdWindow(ROUND_ID_WINDOW))
    _closed: deque[str] = field(default_factory=lambda: deque(maxlen=CLOSED_WINDOW))

    @property
    def last_seq(self) -> int | None:
        """The seq of the last event folded here (None before any)."""
        return self._next_seq - 1 if self._next_seq >= 0 else None

    @last_seq.setter
    def last_seq(self, seq: int | None) -> None:
        self._next_seq = -1 if seq is None else seq + 1

    def is_duplicate(self, event_id: str) -> bool:
        """True for an event_id among the last DEDUP_WINDOW seen here; otherwise remember it."""
        if self.window.add(event_id):
            return False
        self.duplicates += 1
        return True

    def apply(self, event: AnyEvent) -> list[RoundOrFinding]:
        """Fold one event (not a duplicate) and return what it completed."""
        last_seq = self.last_seq
        self.last_seq = event.seq
        current = self.open_round
        # The usual event, kept to a few operations: the next seq, for the open
        # round, neither starting nor ending it (an open round means a seq seen).
        if current is not None and type(event) in _MID_ROUND:
            mid: AnyRoundEvent = event  # type: ignore[assignment]
            if mid.round_id == current.round_id and mid.seq == last_seq + 1:  # type: ignore[operator]
                current.apply(mid)
                return []
        out: list[RoundOrFinding] = []
        if type(event) in ROUND_EVENT_TYPES:  # isinstance(event, RoundEvent), faster
            at_round = cast(RoundEvent, event)
            gap = sequence_gap.check(last_seq, at_round, at_round.round_id)
            self._round_event(at_round, gap, out)
        else:
            gap = sequence_gap.check(last_seq, event, None)
            if gap is not None:
                out.append(gap)
            self._table_event(event, out)
        return out

    def recent_ids(self, n: int) -> list[str]:
        """The last ``n`` event_ids of the duplicate window, oldest first."""
        return self.window.recent(n)

    def closed_rounds(self) -> Iterable[str]:
        """Rounds recently judged here, oldest first."""
        return iter(self._closed)

    def recent_rounds(self, n: int) -> list[WindowRound]:
        """The last ``n`` rounds of the round-id window, oldest first (see
        :meth:`RoundIdWindow.recent`)."""
        return self.round_ids.recent(n)

    def remember(
        self,
        seen: Iterable[str],
        closed: Iterable[str],
        opened: Iterable[WindowRound] = (),
    ) -> None:
        """Restore the duplicate window, the recently closed rounds and the round-id window
        (each oldest first)."""
        self.window.add_all(seen)
        self._closed.extend(closed)
        self.round_ids.open_all(opened)

    def finish(self, why: str) -> list[RoundOrFinding]:
        """Close the open round, if any, as incomplete."""
        out: list[RoundOrFinding] = []
        self._close_open(why, out)
        return out

    # ---- table events -------------------------------------------------------

    def _table_event(self, event: AnyEvent, out: list[RoundOrFinding]) -> None:
        # Exact types (see events.ROUND_EVENT_TYPES): no metaclass __instancecheck__.
        if type(event) is DeckIn:
            self.decks[event.deck_id] = DeckState(event.dealing, event.ts, event.event_id)
        elif type(event) is Shuffle:
            deck = self.decks.get(event.deck_id)
            if deck is not None:
                deck.shuffle = event
                deck.shuffle_reported = False
        elif type(event) is DeckOut:
            self.decks.pop(event.deck_id, None)
        elif type(event) is Meter:
            self.meter = event.amount
            if self.open_round is not None:
                self.open_round.observe_meter(event)
        elif type(event) is DeviceFault:
            if self.open_round is not None:
                self.open_round.observe_fault(event)
        elif type(event) is TableOpen:
            if event.game != self.config.game:
                out.append(
                    table_finding(
                        self.table_id,
                        None,
                        "GAME_MISMATCH",
                        "Rules Submission (§ 601a.2)",
                        f"table_open says {event.game} but the configuration of "
                        f"{self.table_id} is {self.config.game}: judged as {self.config.game}",
                        (event.event_id,),
                        event.ts,
                    )
                )
        elif type(event) is TableClose:
            self._close_open("the table closed before round_end", out)

    # ---- round events -------------------------------------------------------

    def _round_event(
        self, event: RoundEvent, gap: Finding | None, out: list[RoundOrFinding]
    ) -> None:
        current = self.open_round
        if type(event) is RoundStart:
            if current is not None:  # the message is built only for a round left open
                self._close_open(f"round {event.round_id} started before round_end", out)
            current = self._open(event)
            self._on_start(event)
        elif current is None or current.round_id != event.round_id:
            if event.round_id in self._closed:
                self._outside_round(event, gap, out)
                return
            self._close_open(f"events of round {event.round_id} arrived before round_end", out)
            current = self._open(event)
        if gap is not None:
            self.attached.append(gap)
        current.apply(event)  # type: ignore[arg-type]
        if type(event) is RoundEnd:
            self._judge(current, out, "no round_end")

    def _open(self, opening: RoundEvent) -> Round:
        """A new round, begun by ``opening`` (its round_start, or its first event)."""
        round_id = opening.round_id
        rnd = Round(self.table_id, round_id, meter=self.meter)
        self.open_round = rnd
        self.attached = []
        first = self.round_ids.open(
            round_id, RoundOpening(opening.event_id, opening.seq, opening.ts)
        )
        if first is not None:  # the id was used before: rare
            reused = round_id_reused.check(first, opening)
            if reused is not None:
                self.attached.append(reused)
        return rnd

    def _on_start(self, start: RoundStart) -> None:
        deck = self.decks.get(start.deck_id)
        if deck is None:
            return
        if not deck.overdue_reported:
            late = deck_change_overdue.check(
                self.config.rules.sections, deck.dealing, deck.in_ts, deck.in_event_id, start
            )
            if late is not None:
                self.attached.append(late)
                deck.overdue_reported = True
        if deck.shuffle is not None and not deck.shuffle_reported:
            bad = shuffler_count_mismatch.check(self.config.rules.sections, deck.shuffle, start)
            if bad is not None:
                self.attached.append(bad)
            deck.shuffle_reported = True

    def _dealing(self, rnd: Round) -> str:
        deck = self.decks.get(rnd.start.deck_id) if rnd.start else None
        if deck is not None:
            return deck.dealing
        return self.config.dealing or "hand"

    def _close_open(self, why: str, out: list[RoundOrFinding]) -> None:
        if self.open_round is not None:
            self._judge(self.open_round, out, why)

    def _judge(self, rnd: Round, out: list[RoundOrFinding], why: str) -> None:
        dealing = self._dealing(rnd)
        if rnd.start is not None and not self.config.counting_shuffler:
            self._stub_cadence(rnd, dealing)
        out.append(judge_round(rnd, self.config, dealing, tuple(self.attached), why))
        self._closed.append(rnd.round_id)
        self.open_round = None
        self.attached = []

    def _stub_cadence(self, rnd: Round, dealing: str) -> None:
        assert rnd.start is not None
        if rnd.stub_counts:
            self.rounds_without_stub = 0
            self.stubless_starts = []
            return
        self.rounds_without_stub += 1
        self.stubless_starts.append(rnd.start.event_id)
        if self.rounds_without_stub >= stub_count_missing.ROUNDS:
            self.attached.append(
                stub_count_missing.check(
                    self.config.rules.sections,
                    dealing,
                    self.table_id,
                    rnd.round_id,
                    tuple(self.stubless_starts),
                    rnd.ts,
                )
            )
            self.rounds_without_stub = 0
            self.stubless_starts = []

    def _outside_round(
        self, event: RoundEvent, gap: Finding | None, out: list[RoundOrFinding]
    ) -> None:
        if gap is not None:
            out.append(gap)
        out.append(
            table_finding(
                self.table_id,
                event.round_id,
                "EVENT_OUTSIDE_ROUND",
                "CONTROLLER_PROTOCOL v1 round events",
                f"`{event_type(event)}` for round {event.round_id} arrived after its round_end: "
                "not part of the judged round",
                (event.event_id,),
                event.ts,
            )
        )


def fold_events(
    tables: Mapping[str, TableState],
    events: Sequence[AnyEvent],
    fold_one: Callable[[AnyEvent], list[RoundOrFinding]],
) -> Iterator[tuple[int, RoundOrFinding]]:
    """Fold ``events`` in order as ``fold_one`` (the auditor's one-event fold) would, yielding
    (index of the event, outcome) for what they complete.

    Most events only add to a round in progress: the next ``seq`` of their
    table, for its open round, of a type the round collects in a list, with
    an event_id not in the duplicate window. Those are appended to the round
    here, in this loop, by the same steps as :meth:`TableState.is_duplicate`,
    :meth:`TableState.apply` and :meth:`Round.apply` take for them: three calls
    per event were most of the cost of folding. The window's oldest ids are
    forgotten in bulk at the end (:class:`~tablewatch.rules.id_window.IdWindow`);
    until then an id found in it may be an old one, and its event goes to the
    exact check. Every other event (a table's first, a duplicate, a seq gap, a
    round opening or closing, a table event) goes to ``fold_one``.
    """
    for index, event in enumerate(events):
        table = tables.get(event.table_id)
        if (
            table is not None
            and (current := table.open_round) is not None
            and (collect := current.collectors.get(type(event))) is not None
        ):
            mid: AnyRoundEvent = event  # type: ignore[assignment]  # collected: a round event
            seq = mid.seq
            window = table.window
            if (
                mid.round_id == current.round_id
                and seq == table._next_seq  # a round is open: a seq was seen
                and (event_id := mid.event_id) not in (ids := window.ids)
            ):
                ids.add(event_id)  # is_duplicate: not in the window (trimmed later)
                window.order.append(event_id)
                table._next_seq = seq + 1
                collect.append(mid)  # Round.apply
                current.last = mid
                continue
        for outcome in fold_one(event):
            yield index, outcome
    for table in tables.values():  # what the fast path added: forget the oldest now
        table.window.trim()
