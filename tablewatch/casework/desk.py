"""The casework desk: the one place a step is decided and written.

:meth:`CaseDesk.act` holds the desk's lock while it reads the finding and its case as it
stands, calls :func:`~.model.decide` and inserts the step's ``case_events`` row: two
commands on one finding are decided one after the other, each on the case the other
left, so two claims at once make one claim and one refusal naming who has it.

It runs in the one process that owns a writable store (``docs/casework.md``): the worker
(its embedded store; serve-api forwards commands to it) or ``serve-api --dsn``. Blocking
(the store's client): call it from a thread, never the event loop.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from clickhouse_connect.driver.client import Client

from tablewatch.casework import reads
from tablewatch.casework.dispositions import DEFAULT_DISPOSITIONS
from tablewatch.casework.model import (
    Actor,
    Case,
    Command,
    Link,
    Refusal,
    Step,
    Unchanged,
    decide,
)
from tablewatch.casework.rows import CASE_EVENTS, COLUMNS, insert_row
from tablewatch.casework.wire import BodyRefused, case_json, command_of
from tablewatch.store.read_only import Answer


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Decided:
    """The case after the command; ``step``: the step written (None: nothing changed)."""

    case: Case
    step: Step | None


class ClientRows:
    """A client's rows as the reads take them (``run(sql) -> Answer``)."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def run(self, sql: str) -> Answer:
        result = self.client.query(sql)
        return Answer(list(result.column_names), result.result_rows)


class CaseDesk:
    def __init__(
        self,
        client: Client,
        dispositions: Sequence[str] = DEFAULT_DISPOSITIONS,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.client = client
        self.rows = ClientRows(client)
        self.dispositions = tuple(dispositions)
        self.clock = clock
        self._lock = threading.Lock()

    def act(self, finding_id: str, command: Command, actor: Actor) -> Decided | Refusal:
        """Decide ``command`` by ``actor`` on ``finding_id``'s case and write its step."""
        with self._lock:
            finding = reads.finding_ref(self.rows, finding_id)
            if finding is None:
                return Refusal(404, f"no finding {finding_id!r}")
            case, _ = reads.current(self.rows, finding_id)
            if isinstance(command, Link):
                missing = reads.missing_findings(self.rows, command.finding_ids)
                if missing:
                    return Refusal(422, f"finding_ids: no finding {', '.join(missing)}")
            # a step is never dated before the one it follows (a clock set back)
            at = max(self.clock(), case.updated_at or 0) if case is not None else self.clock()
            outcome = decide(case, finding, command, actor, at, self.dispositions)
            if isinstance(outcome, Refusal):
                return outcome
            if isinstance(outcome, Unchanged):
                return Decided(outcome.case, None)
            self.client.insert(CASE_EVENTS, [insert_row(outcome)], column_names=list(COLUMNS))
            return Decided(outcome.case, outcome)

    def answer(
        self, finding_id: str, action: str, body: bytes, actor: Actor
    ) -> tuple[int, dict[str, Any]]:
        """The HTTP answer to ``action`` with the JSON ``body`` by ``actor``: 200 and the
        case's JSON, or the refusal's status and ``{"detail": reason}``."""
        try:
            command = command_of(action, body)
        except BodyRefused as refused:
            return refused.status, {"detail": refused.reason}
        outcome = self.act(finding_id, command, actor)
        if isinstance(outcome, Refusal):
            return outcome.status, {"detail": outcome.reason}
        return 200, case_json(outcome.case)
