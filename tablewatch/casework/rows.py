"""A step as a ``case_events`` row (migration 0017) and back; a case from its steps.

Times are integer ms (clickhouse-connect writes them to ``DateTime64(3, 'UTC')`` as is,
and the reads select ``toUnixTimestamp64Milli``), so the rows read the same from a
client, the API's readers and the worker's ``/query``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

from tablewatch.casework.model import Case, CaseState, Step, StepKind

CASE_EVENTS: Final = "case_events"
COLUMNS: Final = (
    "finding_id", "step", "kind", "at", "by", "role", "note", "reason", "state", "assignee",
    "disposition", "recovered_cents", "camera", "window_start", "window_end", "links",
    "table_id", "round_id", "check", "severity", "pit", "finding_ts",
)  # fmt: skip
_TIMES: Final = frozenset({"at", "window_start", "window_end", "finding_ts"})
# the columns as a SELECT list, in COLUMNS' order, times as epoch ms
SELECT_STEP: Final = ", ".join(
    f"toUnixTimestamp64Milli({name}) AS {name}_ms" if name in _TIMES else f"`{name}`"
    for name in COLUMNS
)


def insert_row(step: Step) -> list[Any]:
    """The ``case_events`` row of ``step``, in :data:`COLUMNS`' order."""
    c = step.case
    return [
        c.finding_id, step.step, step.kind.value, step.at, step.by, step.role, step.note,
        step.reason, c.state.value, c.assignee, c.disposition, c.recovered_cents, c.camera,
        c.window_start, c.window_end, list(c.links), c.table_id, c.round_id, c.check,
        c.severity, c.pit, c.finding_ts,
    ]  # fmt: skip


def _ms(value: Any) -> int | None:
    return None if value is None else int(value)


def steps_of(rows: Sequence[Sequence[Any]]) -> list[Step]:
    """Steps from rows selected with :data:`SELECT_STEP`, oldest first; each step's case
    with ``first_at`` and ``assigned_at`` (its last claim, while in review) set."""
    steps: list[Step] = []
    first_at: int | None = None
    assigned_at: int | None = None
    for row in sorted(rows, key=lambda r: int(r[1])):
        (finding_id, number, kind, at, by, role, note, reason, state, assignee, disposition,
         recovered, camera, start, end, links, table_id, round_id, check, severity, pit,
         finding_ts) = row  # fmt: skip
        at_ms = int(at)
        first_at = at_ms if first_at is None else first_at
        step_kind = StepKind(str(kind))
        case_state = CaseState(str(state))
        if step_kind is StepKind.CLAIMED:
            assigned_at = at_ms
        if case_state is not CaseState.IN_REVIEW:
            assigned_at = None
        case = Case(
            str(finding_id), int(number), case_state, str(assignee), str(disposition),
            int(recovered), str(camera), _ms(start), _ms(end), tuple(str(x) for x in links),
            at_ms, str(by), first_at, str(table_id), str(round_id), str(check), str(severity),
            str(pit), _ms(finding_ts), assigned_at,
        )  # fmt: skip
        steps.append(Step(step_kind, at_ms, str(by), str(role), str(note), str(reason), case))
    return steps


def case_of(steps: Sequence[Step]) -> Case | None:
    """The case after the last of ``steps`` (None: no step yet)."""
    return replace(steps[-1].case) if steps else None
