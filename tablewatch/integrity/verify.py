"""Recomputing a table's chain and checking its checkpoints: what ``tablewatch verify`` does.

:func:`verify_table` walks a table's chained rows in position order and
names each broken link:

- a position missing (an event deleted), or two rows at one position (one
  inserted);
- a row whose ``chain_prev`` is not the ``chain_hash`` of the row before it
  (an event inserted, deleted or moved before it, or positions renumbered);
- a row whose hash, recomputed from its ``chain_prev``, table, position, seq
  and payload, is not its ``chain_hash`` (its bytes changed, or it was moved);
- a row whose columns (event_id, seq, ts, type, round_id) are not what its
  payload says;
- an event outside the chain (position 0) stored after the chain began;

and checks each checkpoint: its key is a published (or given) one, its
signature verifies, and its hash is the chain recomputed from the stored
events up to its position (one past the last stored event means events at
the end were deleted).

A gap next to events past the retention period (5 years and 7 days, see
``docs/store.md``) is what the store's TTL removes, not a broken link.

The numbered checkpoints must form their chain (every number from the first to
the last, each after its predecessor's link). Held against the record kept
outside the store (:mod:`tablewatch.integrity.manifest`: ``anchors``, each a
signed position and hash of the chain, and ``external`` checkpoints), the
store must hold the chain up to every anchor with its hash, and every external
checkpoint. With ``tail_limit_ms``, events that no checkpoint or anchor covers
and that were stored longer ago than that are a problem: the worker signs a
table's new events within its checkpoint interval.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import msgspec

from tablewatch.integrity.chain import GENESIS_HEX, link
from tablewatch.integrity.checkpoints import FIRST_PREV, Checkpoint, signature_ok
from tablewatch.rules.events import ms_to_ts, ts_to_ms

DAY_MS: Final = 86_400_000
# the TTL's 5 years and 7 days, in the shortest case (one leap day), and a day of clocks apart
RETENTION_MS: Final = (5 * 365 + 1 + 7 + 1) * DAY_MS
SHOWN_PER_TABLE: Final = 20  # problems printed per table (all are counted)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """A chained ``raw_events`` row, as verify reads it."""

    chain_pos: int
    chain_prev: str
    chain_hash: str
    event_id: str
    seq: int
    ts_ms: int
    type: str
    round_id: str
    payload: bytes
    kafka_partition: int
    kafka_offset: int
    ingested_at_ms: int

    def named(self) -> str:
        return f"seq {self.seq}, event {self.event_id}"


@dataclass(frozen=True, slots=True)
class Outside:
    """A table's rows outside the chain (position 0): how many, and how many of them were
    stored after the chain began, with the first of those."""

    rows: int = 0
    after_chain: int = 0
    first_after: str = ""  # its event_id
    first_after_ms: int = 0  # its ingested_at


@dataclass(frozen=True, slots=True)
class ExternalAnchor:
    """A position of a table's chain and its hash, signed, as the record outside the store
    holds it (a manifest's entry or a checkpoint), with where it was read."""

    position: int
    hash: str
    where: str


@dataclass(frozen=True, slots=True)
class Problem:
    position: int  # 0: not at a position of the chain
    what: str


@dataclass(slots=True)
class TableReport:
    table_id: str
    events: int = 0  # chained rows read
    first: int = 0  # first and last positions read
    last: int = 0
    outside: int = 0
    checkpoints: int = 0  # checked
    checkpoints_failed: int = 0
    expired_before: int = 0  # the positions before ``first`` are past retention
    problems: list[Problem] = field(default_factory=list)
    anchors: int = 0  # positions held against the external record
    unsigned: int = 0  # events past the last checkpoint or anchor (within the interval)
    verified: bool = True  # False: no trusted key or external record: never "intact"

    @property
    def broken(self) -> bool:
        return bool(self.problems)

    def first_problem(self) -> Problem | None:
        return min(self.problems, key=lambda p: p.position) if self.problems else None

    def summary(self) -> str:
        what = f"{self.events:,} event{'s' if self.events != 1 else ''}"
        if self.events:
            what += f" (positions {self.first:,}-{self.last:,})"
        if self.expired_before:
            what += f", positions 1-{self.expired_before:,} past retention"
        checked = f"{self.checkpoints:,} checkpoint{'s' if self.checkpoints != 1 else ''}"
        if self.checkpoints_failed:
            checked += f", {self.checkpoints_failed:,} failed"
        else:
            checked += " verified"
        outside = f"{self.outside:,} outside the chain"
        if self.anchors:
            checked += f", {self.anchors:,} external anchor{'s' if self.anchors != 1 else ''}"
        if self.unsigned:
            outside += f", {self.unsigned:,} newest not signed yet"
        first = self.first_problem()
        if first is None:
            verdict = "intact" if self.verified else "consistent, UNVERIFIED"
            return f"{self.table_id}: {verdict}: {what}, {checked}, {outside}"
        at = f"at position {first.position:,}" if first.position else "outside the chain"
        problems = f"{len(self.problems):,} problem{'s' if len(self.problems) != 1 else ''}"
        return (
            f"{self.table_id}: BROKEN {at}: {first.what}; {problems}; {what}, {checked}, {outside}"
        )

    def lines(self, limit: int = SHOWN_PER_TABLE) -> list[str]:
        """The problems, by position (at most ``limit``), then the summary."""
        ordered = sorted(self.problems, key=lambda p: p.position)
        shown = [
            f"  {self.table_id} {'position ' + format(p.position, ',') if p.position else 'outside the chain'}: {p.what}"  # noqa: E501
            for p in ordered[:limit]
        ]
        if len(ordered) > limit:
            shown.append(f"  {self.table_id}: {len(ordered) - limit:,} more problems")
        return [*shown, self.summary()]


_DECODE = msgspec.json.Decoder()


def column_mismatch(row: StoredEvent, table_id: str) -> str | None:
    """Which of the row's columns differ from its payload, or None."""
    try:
        event = _DECODE.decode(row.payload)
    except msgspec.DecodeError:
        return "its payload is not JSON"
    if not isinstance(event, dict):
        return "its payload is not a JSON object"
    round_id = event.get("round_id")
    wanted = {
        "table_id": (event.get("table_id"), table_id),
        "event_id": (event.get("event_id"), row.event_id),
        "seq": (event.get("seq"), row.seq),
        "type": (event.get("type"), row.type),
        "round_id": ("" if round_id is None else round_id, row.round_id),
    }
    differ = [name for name, (said, stored) in wanted.items() if said != stored]
    ts = event.get("ts")
    try:
        if not isinstance(ts, str) or ts_to_ms(ts) != row.ts_ms:
            differ.append("ts")
    except (ValueError, TypeError):
        differ.append("ts")
    if differ:
        columns = "column" + ("s" if len(differ) > 1 else "")
        return f"its {', '.join(differ)} {columns} differ from its payload"
    return None


def recomputed(row: StoredEvent, table_id: str, prev_hex: str) -> str | None:
    """The row's hash recomputed after ``prev_hex``, or None when that is not a hash."""
    try:
        prev = bytes.fromhex(prev_hex)
    except ValueError:
        return None
    if len(prev) != 32:
        return None
    return link(prev, table_id, row.chain_pos, row.seq, row.payload).hex()


def verify_table(
    table_id: str,
    events: Iterable[StoredEvent],
    checkpoints: Sequence[Checkpoint] = (),
    keys: Mapping[str, bytes] | None = None,
    *,
    outside: Outside = Outside(),
    now_ms: int,
    partial: bool = False,
    anchors: Sequence[ExternalAnchor] = (),
    external: Sequence[tuple[str, Checkpoint]] = (),
    tail_limit_ms: int | None = None,
) -> TableReport:
    """Walk ``events`` (chained rows, by position) and check ``checkpoints`` against the
    public ``keys`` (key id -> raw key), the ``anchors`` and ``external`` checkpoints of the
    record outside the store, and the unsigned tail (``tail_limit_ms``). ``partial``: the
    walk starts where asked (``--since``), so a first position past 1 is expected."""
    report = TableReport(table_id, outside=outside.rows)
    covered = max(
        [c.chain_pos for c in checkpoints]
        + [a.position for a in anchors]
        + [c.chain_pos for _, c in external],
        default=0,
    )
    tail_from: StoredEvent | None = None  # the first stored event past ``covered``
    add = report.problems.append
    if outside.after_chain:
        add(
            Problem(
                0,
                f"{outside.after_chain:,} event{'s' if outside.after_chain != 1 else ''} "
                f"stored outside the chain after it began (first: event {outside.first_after}, "
                f"stored {ms_to_ts(outside.first_after_ms)})",
            )
        )
    wanted = {c.chain_pos for c in checkpoints} | {a.position for a in anchors}
    wanted |= {c.chain_pos for _, c in external}
    true_at: dict[int, str] = {}  # the recomputed chain at the checkpoints' positions
    previous: StoredEvent | None = None
    true_prev = ""  # the chain recomputed from the stored events, hex
    for row in events:
        position = row.chain_pos
        if previous is None:
            report.first = position
            if position == 1:
                true_prev = GENESIS_HEX
                if row.chain_prev != GENESIS_HEX:
                    add(Problem(1, f"its chain_prev is not the start of a chain ({row.named()})"))
            else:
                true_prev = row.chain_prev
                if not partial:
                    if now_ms - row.ingested_at_ms > RETENTION_MS:
                        report.expired_before = position - 1
                    else:
                        add(
                            Problem(
                                1,
                                f"positions 1-{position - 1:,} are missing: the first stored "
                                f"event, at {position:,} ({row.named()}), was stored "
                                f"{ms_to_ts(row.ingested_at_ms)}, within the retention period",
                            )
                        )
        else:
            last = previous.chain_pos
            if position == last:
                add(
                    Problem(
                        position,
                        f"two events at this position: {previous.named()} and {row.named()}",
                    )
                )
                continue
            if position > last + 1:
                gap = (
                    f"position {last + 1:,}"
                    if position == last + 2
                    else f"positions {last + 1:,}-{position - 1:,}"
                )
                if now_ms - previous.ingested_at_ms <= RETENTION_MS:
                    add(Problem(last + 1, f"{gap} missing (before {row.named()})"))
                true_prev = row.chain_prev  # the chain goes on from what the next one says
            elif row.chain_prev != previous.chain_hash:
                add(
                    Problem(
                        position,
                        f"its chain_prev is not the hash of the event before it ({row.named()}): "
                        "an event before it was changed, inserted, deleted or moved",
                    )
                )
        own = recomputed(row, table_id, row.chain_prev)
        if own is None:
            add(Problem(position, f"its chain_prev is not a hash ({row.named()})"))
        elif own != row.chain_hash:
            add(
                Problem(
                    position,
                    f"its bytes, seq or position do not match its hash ({row.named()})",
                )
            )
        mismatch = column_mismatch(row, table_id)
        if mismatch is not None:
            add(Problem(position, f"{mismatch} ({row.named()})"))
        true_hash = recomputed(row, table_id, true_prev) or ""
        if position in wanted:
            true_at[position] = true_hash
        true_prev = true_hash
        previous = row
        report.events += 1
        report.last = position
        if position > covered and tail_from is None:
            tail_from = row
    _check_checkpoints(report, checkpoints, keys or {}, true_at)
    _check_numbered(report, checkpoints, partial=partial)
    _check_external(report, anchors, external, checkpoints, true_at)
    if tail_from is not None:
        report.unsigned = report.last - tail_from.chain_pos + 1
        age_ms = now_ms - tail_from.ingested_at_ms
        if tail_limit_ms is not None and age_ms > tail_limit_ms:
            report.problems.append(
                Problem(
                    tail_from.chain_pos,
                    f"positions {tail_from.chain_pos:,}-{report.last:,} are covered by no "
                    f"checkpoint: the first ({tail_from.named()}) was stored "
                    f"{ms_to_ts(tail_from.ingested_at_ms)}, {age_ms // 60_000:,} minutes ago, "
                    f"longer than the {tail_limit_ms // 60_000:,} minutes in which the worker "
                    "signs new events (checkpoints deleted, or the worker stopped signing)",
                )
            )
    return report


def _check_numbered(
    report: TableReport, checkpoints: Sequence[Checkpoint], *, partial: bool
) -> None:
    """The numbered checkpoints form a chain: no number missing between the first and the
    last, number 1 first of all (unless the walk starts later), each after a link of the
    number before."""
    links: dict[int, set[str]] = {}
    for checkpoint in checkpoints:
        if checkpoint.number > 0:
            links.setdefault(checkpoint.number, set()).add(checkpoint.link)
    if not links:
        return
    add = report.problems.append
    lowest = 1 if not (partial or report.expired_before) else min(links)
    missing = [n for n in range(lowest, max(links) + 1) if n not in links]
    for start, end in _runs(missing):
        which = f"checkpoint {start:,}" if start == end else f"checkpoints {start:,}-{end:,}"
        after = next((c for c in sorted(checkpoints, key=lambda c: c.number)
                      if c.number > end), None)  # fmt: skip
        at = after.chain_pos if after is not None else report.last
        add(Problem(at, f"{which} of the table's chain of checkpoints missing from the store"))
    for checkpoint in checkpoints:
        n = checkpoint.number
        if n == 1 and checkpoint.prev_link != FIRST_PREV:
            add(Problem(checkpoint.chain_pos, "checkpoint 1 names a checkpoint before it"))
        elif n > 1 and n - 1 in links and checkpoint.prev_link not in links[n - 1]:
            add(
                Problem(
                    checkpoint.chain_pos,
                    f"checkpoint {n:,} does not follow the stored checkpoint {n - 1:,} "
                    "(it names another link)",
                )
            )


def _runs(numbers: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def _check_external(
    report: TableReport,
    anchors: Sequence[ExternalAnchor],
    external: Sequence[tuple[str, Checkpoint]],
    checkpoints: Sequence[Checkpoint],
    true_at: Mapping[int, str],
    source: str = "the store",
) -> None:
    """The store against the record outside it: the chain recomputed from the stored events
    (or the topic's: ``source``) has each anchor's hash at its position, and each external
    checkpoint is stored."""
    add = report.problems.append
    held = [*anchors, *(ExternalAnchor(c.chain_pos, c.chain_hash, w) for w, c in external)]
    shortened: list[ExternalAnchor] = []
    for anchor in sorted(held, key=lambda a: a.position):
        if report.events and anchor.position < report.first:
            continue
        report.anchors += 1
        if anchor.position in true_at:
            if true_at[anchor.position] != anchor.hash:
                add(
                    Problem(
                        anchor.position,
                        f"the chain recomputed from the stored events is not the one signed "
                        f"outside the store ({anchor.where}): an event at or before this "
                        "position was changed, inserted or deleted",
                    )
                )
        elif not report.events or anchor.position > report.last:
            shortened.append(anchor)
        else:
            add(Problem(anchor.position, f"no stored event at a position signed in {anchor.where}"))
    if shortened:
        top = shortened[-1]
        stored = f"{source} ends at {report.last:,}" if report.events else f"{source} holds none"
        add(
            Problem(
                top.position,
                f"the chain is signed outside the store up to position {top.position:,} "
                f"({top.where}) but {stored}: its events at the end were deleted",
            )
        )
    stored_keys = {(c.number, c.chain_pos, c.chain_hash, c.prev_link) for c in checkpoints}
    for where, checkpoint in external:
        if report.events and checkpoint.chain_pos < report.first:
            continue
        key = (checkpoint.number, checkpoint.chain_pos, checkpoint.chain_hash, checkpoint.prev_link)
        if key not in stored_keys:
            add(
                Problem(
                    checkpoint.chain_pos,
                    f"checkpoint {checkpoint.number:,} (signed "
                    f"{ms_to_ts(checkpoint.signed_at_ms)}, in {where}) is not in the store",
                )
            )


def _check_checkpoints(
    report: TableReport,
    checkpoints: Sequence[Checkpoint],
    keys: Mapping[str, bytes],
    true_at: Mapping[int, str],
) -> None:
    add = report.problems.append
    # Once the recomputed chain misses a checkpoint's hash, it misses every later one too
    # until it meets one again (what broke it is reported on its own): those are counted
    # on the first.
    first_missed: int | None = None  # its index in report.problems
    missed_after: list[int] = []
    for checkpoint in sorted(checkpoints, key=lambda c: c.chain_pos):
        position = checkpoint.chain_pos
        if report.events and position < report.first:
            continue  # before the first event read (past retention, or before --since)
        report.checkpoints += 1
        failed = []
        public = keys.get(checkpoint.key_id)
        if public is None:
            failed.append(f"its key {checkpoint.key_id} is not a published or given key")
        elif not signature_ok(checkpoint, public):
            failed.append(f"its signature does not verify with key {checkpoint.key_id}")
        missed = False
        if position in true_at:
            missed = true_at[position] != checkpoint.chain_hash
            if not missed:
                first_missed = None
        elif not report.events or position > report.last:
            failed.append(
                "it is past the last stored event"
                + (f" ({report.last:,})" if report.events else " (none stored)")
                + ": events at the end are missing"
            )
        else:
            failed.append("no stored event at its position")
        if missed:
            if first_missed is not None and not failed:
                missed_after.append(position)
                report.checkpoints_failed += 1
                continue
            failed.append("its hash is not the chain recomputed from the stored events")
        if failed:
            report.checkpoints_failed += 1
            if missed and first_missed is None:
                first_missed, missed_after = len(report.problems), []
            signed = ms_to_ts(checkpoint.signed_at_ms)
            add(Problem(position, f"checkpoint signed {signed}: {'; '.join(failed)}"))
        if first_missed is not None and missed_after and not missed:
            _fold(report, first_missed, missed_after)
            first_missed, missed_after = None, []
    if first_missed is not None and missed_after:
        _fold(report, first_missed, missed_after)


def _fold(report: TableReport, index: int, positions: list[int]) -> None:
    first = report.problems[index]
    n = len(positions)
    where = f"{positions[0]:,}-{positions[-1]:,}" if n > 1 else f"{positions[0]:,}"
    more = f"; so do the {n:,} checkpoint{'s' if n != 1 else ''} after it (at {where})"
    report.problems[index] = Problem(first.position, first.what + more)


@dataclass(frozen=True, slots=True)
class RecomputedLink:
    """A link of a chain recomputed from the events topic (``kafka_source.Link``)."""

    position: int
    hash: str
    partition: int
    offset: int
    seq: int
    ts_ms: int


def verify_recomputed(
    table_id: str,
    links: Sequence[RecomputedLink],
    stored: Mapping[int, tuple[str, int, int]],
    checkpoints: Sequence[Checkpoint] = (),
    keys: Mapping[str, bytes] | None = None,
    *,
    since_ms: int | None = None,
    anchors: Sequence[ExternalAnchor] = (),
    external: Sequence[tuple[str, Checkpoint]] = (),
) -> TableReport:
    """Compare a chain recomputed from the topic with the store's rows (position ->
    (chain_hash, partition, offset)) and check the checkpoints, and the ``anchors`` and
    ``external`` checkpoints of the record outside the store, against it."""
    report = TableReport(table_id)
    add = report.problems.append
    true_at: dict[int, str] = {}
    seen: set[int] = set()
    for item in links:
        if since_ms is not None and item.ts_ms < since_ms:
            continue
        position = item.position
        seen.add(position)
        true_at[position] = item.hash
        if not report.events:
            report.first = position
        report.events += 1
        report.last = position
        where = f"partition {item.partition} offset {item.offset}, seq {item.seq}"
        row = stored.get(position)
        if row is None:
            add(Problem(position, f"the topic's event ({where}) is not in the store"))
        elif row[0] != item.hash:
            add(
                Problem(
                    position,
                    f"the store's event (partition {row[1]} offset {row[2]}) does not hash as "
                    f"the topic's ({where}): it or one before it differs",
                )
            )
    if links and since_ms is None:
        extra = sorted(p for p in stored if p > links[-1].position)
        if extra:
            add(
                Problem(
                    extra[0],
                    f"{len(extra):,} stored event{'s' if len(extra) != 1 else ''} past the "
                    f"topic's last ({links[-1].position:,}): not in the topic",
                )
            )
    _check_checkpoints(report, checkpoints, keys or {}, true_at)
    _check_numbered(report, checkpoints, partial=since_ms is not None)
    _check_external(report, anchors, external, checkpoints, true_at, "the topic")
    return report
