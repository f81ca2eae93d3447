"""Where the patterns companion's output goes: its findings and checkpoints in the store.

:func:`write_step` stores a step of the companion: first its pattern findings, as rows
of ``findings`` like any other (table-level, ``start_event_id`` '', their id
:func:`~tablewatch.store.rows.finding_id` of their content and origin), then its
checkpoint, a row of ``pattern_checkpoints`` (migration 0020) one revision above the
one before. A step stopped between the two is made again from the checkpoint before,
with the same findings under the same ids: ``findings`` keeps one row per id.

:func:`finding_messages` gives the findings as messages of the ``findings`` topic, in the
worker's format (:func:`~tablewatch.topics.finding_message`), for the alerter, from the rows
:func:`write_step` stored.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from clickhouse_connect.driver.client import Client

from tablewatch.patterns.companion_loop import Step
from tablewatch.patterns.finding import PatternFinding
from tablewatch.store.rows import FindingRow, finding_row
from tablewatch.store.writer import StoreWriter
from tablewatch.topics import finding_message

CHECKPOINTS: Final = "pattern_checkpoints"
CHECKPOINT_COLUMNS: Final = ("name", "revision", "saved_at", "rounds", "late", "state")


@dataclass(frozen=True, slots=True)
class Saved:
    """The companion's latest checkpoint in the store."""

    revision: int
    state: bytes
    rounds: int
    late: int


def load_checkpoint(client: Client, name: str) -> Saved | None:
    """The checkpoint of the highest revision saved under ``name`` (None: none yet)."""
    rows = client.query(
        f"SELECT revision, state, rounds, late FROM {CHECKPOINTS} WHERE name = {{n:String}} "
        "ORDER BY revision DESC LIMIT 1",
        parameters={"n": name},
    ).result_rows
    if not rows:
        return None
    revision, state, rounds, late = rows[0]
    text = state.decode() if isinstance(state, bytes) else str(state)
    return Saved(int(revision), base64.b64decode(text), int(rounds), int(late))


def finding_rows(findings: Sequence[PatternFinding], judged_ms: int) -> list[FindingRow]:
    """The ``findings`` rows of pattern findings: each one's id from its content and its
    :attr:`~PatternFinding.origin` (two findings of one check on one round and seat, for
    two units or two spans, are two rows)."""
    return [finding_row(f.as_finding(), judged_ms, origin=f.origin) for f in findings]


def write_step(
    client: Client,
    name: str,
    revision: int,
    step: Step,
    now_ms: int,
) -> list[FindingRow]:
    """Store the step's findings, then its checkpoint as ``revision`` (see the module's
    docstring); the findings' rows stored."""
    rows = finding_rows(step.findings, now_ms)
    if rows:
        StoreWriter(client).insert(findings=rows)
    state = base64.b64encode(step.checkpoint).decode()
    client.insert(
        CHECKPOINTS,
        [[name, revision, now_ms, step.rounds, step.late, state]],
        column_names=list(CHECKPOINT_COLUMNS),
    )
    return rows


def finding_messages(
    findings: Sequence[PatternFinding], rows: Sequence[FindingRow]
) -> list[tuple[bytes, bytes]]:
    """(key, value) of each finding's ``findings`` topic message, its stored row ``rows``'
    (:func:`write_step`): the finding, no start event (a pattern's is table-level) and its
    row's id."""
    return [
        finding_message(found.as_finding(), "", str(row[0]))
        for found, row in zip(findings, rows, strict=True)
    ]


class StoreSink:
    """The sink of a companion run alone (``tablewatch patterns``, a store server): each step
    stored through ``client``, its findings sent by ``send`` (the findings topic)."""

    def __init__(
        self,
        client: Client,
        name: str,
        revision: int,
        send: Callable[[list[tuple[bytes, bytes]]], None],
    ) -> None:
        self.client = client
        self.name = name
        self.revision = revision
        self.send = send
        self.steps = 0

    def write(self, step: Step) -> None:
        now_ms = int(time.time() * 1000)
        self.revision += 1
        rows = write_step(self.client, self.name, self.revision, step, now_ms)
        if rows:
            self.send(finding_messages(step.findings, rows))
        self.steps += 1
