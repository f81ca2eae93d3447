"""A finding's case: its states, the commands taken on it and who may take which (pure).

:func:`decide` is the one rule: given the case as it stands (None: no step yet, so open
and unclaimed), the finding, a command, who acts and when, it answers the :class:`Step`
to write (the case as it stands after it), :class:`Unchanged` (a claim by the one who
already has the case) or a :class:`Refusal` with an HTTP status and the reason in words.

Who acts is always the caller's :class:`Actor` (the token's principal), never a field of
a request. Times are epoch milliseconds, UTC; money is integer cents.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final

from tablewatch.access.roles import Permission, Role, allowed
from tablewatch.rules.events import ms_to_ts

MAX_NOTE: Final = 2000
MAX_NAME: Final = 128  # a camera, a finding id
MAX_LINKS: Final = 50
MAX_CENTS: Final = 10**13  # 100 billion dollars: past it, a typing mistake


class CaseState(StrEnum):
    OPEN = "open"  # no step yet, released, or reopened
    IN_REVIEW = "in_review"  # claimed by one person (the assignee)
    CLOSED = "closed"  # with a disposition


class StepKind(StrEnum):
    CLAIMED = "claimed"
    RELEASED = "released"
    NOTED = "noted"
    BOOKMARKED = "bookmarked"
    LINKED = "linked"
    CLOSED = "closed"
    REOPENED = "reopened"


@dataclass(frozen=True, slots=True)
class Actor:
    """Who takes a step: the token's principal (its name and role)."""

    name: str
    role: Role


@dataclass(frozen=True, slots=True)
class FindingRef:
    """The finding a case is about, and the video bookmark's defaults (its table's first
    camera, the round's start - 30 s to its end + 30 s), from the store."""

    finding_id: str
    table_id: str
    round_id: str
    check: str
    severity: str
    pit: str
    finding_ts: int | None  # ms
    camera: str = ""  # the default camera ('' if the table has none)
    window_start: int | None = None  # ms: the default window
    window_end: int | None = None


@dataclass(frozen=True, slots=True)
class Case:
    """A case as it stands: after its last step (``steps`` of them)."""

    finding_id: str
    steps: int
    state: CaseState
    assignee: str
    disposition: str
    recovered_cents: int
    camera: str
    window_start: int | None
    window_end: int | None
    links: tuple[str, ...]
    updated_at: int | None  # ms; None while no step was taken
    updated_by: str
    first_at: int | None
    table_id: str
    round_id: str
    check: str
    severity: str
    pit: str
    finding_ts: int | None
    assigned_at: int | None = None  # ms: when the assignee claimed it (in_review)

    @classmethod
    def unopened(cls, finding: FindingRef) -> Case:
        """The case of a finding with no step yet: open, unclaimed."""
        return cls(
            finding.finding_id, 0, CaseState.OPEN, "", "", 0, "", None, None, (), None, "",
            None, finding.table_id, finding.round_id, finding.check, finding.severity,
            finding.pit, finding.finding_ts,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Step:
    """One step: a row of ``case_events`` (the case as it stands after it in ``case``)."""

    kind: StepKind
    at: int  # ms
    by: str
    role: str
    note: str
    reason: str
    case: Case

    @property
    def step(self) -> int:
        return self.case.steps


@dataclass(frozen=True, slots=True)
class Unchanged:
    """Nothing to write: the case already is as asked (a claim by its assignee)."""

    case: Case


@dataclass(frozen=True, slots=True)
class Refusal:
    status: int  # 400 403 404 409 422
    reason: str


# ---- commands --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Claim:
    pass


@dataclass(frozen=True, slots=True)
class Release:
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Note:
    note: str


@dataclass(frozen=True, slots=True)
class Bookmark:
    """The video bookmark; what is not given is the case's, else the finding's default."""

    camera: str | None = None
    window_start: int | None = None  # ms
    window_end: int | None = None


@dataclass(frozen=True, slots=True)
class Link:
    finding_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Close:
    disposition: str
    note: str = ""
    recovered_cents: int = 0
    camera: str | None = None
    window_start: int | None = None
    window_end: int | None = None


@dataclass(frozen=True, slots=True)
class Reopen:
    reason: str


Command = Claim | Release | Note | Bookmark | Link | Close | Reopen
Outcome = Step | Unchanged | Refusal
ACTIONS: Final[dict[str, type[Command]]] = {
    "claim": Claim,
    "release": Release,
    "note": Note,
    "bookmark": Bookmark,
    "link": Link,
    "close": Close,
    "reopen": Reopen,
}


def iso(ms: int | None) -> str | None:
    """Epoch ms as ISO 8601 UTC with milliseconds (None stays None)."""
    return None if ms is None else ms_to_ts(ms)


def text_refusal(field: str, value: str, *, required: bool, limit: int = MAX_NOTE) -> str | None:
    """Why ``value`` is refused as the text ``field``, or None: too long, empty when
    required, or holding a control character other than tab and line feed."""
    if required and not value.strip():
        return f"{field} is required (non-empty text)"
    if len(value) > limit:
        return f"{field} is {len(value):,} characters, over {limit:,}"
    for ch in value:
        if ch not in "\t\n" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            return f"{field} holds the control character U+{ord(ch):04X}"
    return None


def decide(
    case: Case | None,
    finding: FindingRef,
    command: Command,
    actor: Actor,
    now_ms: int,
    dispositions: Sequence[str],
) -> Outcome:
    """The step ``command`` by ``actor`` takes on ``finding``'s case at ``now_ms``, or
    why not (see the module's docstring)."""
    current = case if case is not None else Case.unopened(finding)
    if not allowed(actor.role, Permission.WORK_CASES):
        return Refusal(
            403,
            f"{actor.name} has the role {actor.role.value}, which may not work cases "
            "(surveillance or admin may)",
        )
    if isinstance(command, Claim):
        return _claim(current, actor, now_ms)
    if isinstance(command, Reopen):
        return _reopen(current, command, actor, now_ms)
    if current.state is CaseState.CLOSED:
        return Refusal(409, f"{_closed_words(current)}: reopen it first")
    if isinstance(command, Release):
        return _release(current, command, actor, now_ms)
    if isinstance(command, Note):
        problem = text_refusal("note", command.note, required=True)
        if problem is not None:
            return Refusal(422, problem)
        return _step(current, StepKind.NOTED, actor, now_ms, note=command.note)
    if isinstance(command, Bookmark):
        return _bookmark(current, finding, command, actor, now_ms)
    if isinstance(command, Link):
        return _link(current, command, actor, now_ms)
    return _close(current, finding, command, actor, now_ms, dispositions)


def _claim(case: Case, actor: Actor, now_ms: int) -> Outcome:
    if case.state is CaseState.IN_REVIEW:
        if case.assignee == actor.name:
            return Unchanged(case)
        return Refusal(409, _state_words(case))
    if case.state is CaseState.CLOSED:
        return Refusal(409, f"{_closed_words(case)}: reopen it first")
    return _step(case, StepKind.CLAIMED, actor, now_ms, state=CaseState.IN_REVIEW,
                 assignee=actor.name, assigned_at=now_ms)  # fmt: skip


def _release(case: Case, command: Release, actor: Actor, now_ms: int) -> Outcome:
    if case.state is not CaseState.IN_REVIEW:
        return Refusal(409, "open: nobody has claimed it")
    if case.assignee != actor.name and actor.role is not Role.ADMIN:
        return Refusal(403, f"in review by {case.assignee}: only they (or an admin) may release it")
    problem = text_refusal("reason", command.reason, required=False)
    if problem is not None:
        return Refusal(422, problem)
    return _step(case, StepKind.RELEASED, actor, now_ms, reason=command.reason,
                 state=CaseState.OPEN, assignee="", assigned_at=None)  # fmt: skip


def _reopen(case: Case, command: Reopen, actor: Actor, now_ms: int) -> Outcome:
    if case.state is not CaseState.CLOSED:
        return Refusal(409, f"{_state_words(case)}: only a closed case is reopened")
    problem = text_refusal("reason", command.reason, required=True)
    if problem is not None:
        return Refusal(422, problem)
    return _step(case, StepKind.REOPENED, actor, now_ms, reason=command.reason,
                 state=CaseState.OPEN, assignee="", disposition="", assigned_at=None)  # fmt: skip


def _bookmark(
    case: Case, finding: FindingRef, command: Bookmark, actor: Actor, now_ms: int
) -> Outcome:
    camera, start, end = _video(case, finding, command.camera, command.window_start,
                                command.window_end, defaults=True)  # fmt: skip
    problem = _video_refusal(camera, start, end)
    if problem is not None:
        return Refusal(422, problem)
    return _step(case, StepKind.BOOKMARKED, actor, now_ms, camera=camera, window_start=start,
                 window_end=end)  # fmt: skip


def _link(case: Case, command: Link, actor: Actor, now_ms: int) -> Outcome:
    if not command.finding_ids:
        return Refusal(422, "finding_ids is required: the ids of the related findings")
    for finding_id in command.finding_ids:
        problem = text_refusal("finding_ids", finding_id, required=True, limit=MAX_NAME)
        if problem is not None:
            return Refusal(422, problem)
        if finding_id == case.finding_id:
            return Refusal(422, f"finding_ids: {finding_id} is this case's own finding")
    links = tuple(dict.fromkeys((*case.links, *command.finding_ids)))
    if len(links) > MAX_LINKS:
        return Refusal(422, f"finding_ids: {len(links)} links, over {MAX_LINKS}")
    if links == case.links:
        return Unchanged(case)
    return _step(case, StepKind.LINKED, actor, now_ms, links=links)


def _close(
    case: Case,
    finding: FindingRef,
    command: Close,
    actor: Actor,
    now_ms: int,
    dispositions: Sequence[str],
) -> Outcome:
    if case.state is CaseState.OPEN:
        return Refusal(409, "open: claim it before closing it")
    if case.assignee != actor.name and actor.role is not Role.ADMIN:
        return Refusal(403, f"in review by {case.assignee}: only they (or an admin) may close it")
    if command.disposition not in dispositions:
        return Refusal(
            422,
            f"disposition {command.disposition!r} is not one of the configured list: "
            + "; ".join(dispositions),
        )
    problem = text_refusal("note", command.note, required=False)
    if problem is not None:
        return Refusal(422, problem)
    if not 0 <= command.recovered_cents <= MAX_CENTS:
        return Refusal(422, f"recovered_cents {command.recovered_cents} is not 0 to {MAX_CENTS}")
    camera, start, end = _video(case, finding, command.camera, command.window_start,
                                command.window_end, defaults=False)  # fmt: skip
    problem = _video_refusal(camera, start, end)
    if problem is not None:
        return Refusal(422, problem)
    return _step(case, StepKind.CLOSED, actor, now_ms, note=command.note,
                 state=CaseState.CLOSED, assignee="", assigned_at=None,
                 disposition=command.disposition,
                 recovered_cents=command.recovered_cents, camera=camera,
                 window_start=start, window_end=end)  # fmt: skip


def _video(
    case: Case,
    finding: FindingRef,
    camera: str | None,
    start: int | None,
    end: int | None,
    *,
    defaults: bool,
) -> tuple[str, int | None, int | None]:
    """The bookmark: each field as given, else the case's, else (``defaults``) the
    finding's default."""
    if camera is None:
        camera = case.camera or (finding.camera if defaults else "")
    if start is None:
        start = case.window_start
        if start is None and defaults:
            start = finding.window_start
    if end is None:
        end = case.window_end
        if end is None and defaults:
            end = finding.window_end
    return camera, start, end


def _video_refusal(camera: str, start: int | None, end: int | None) -> str | None:
    problem = text_refusal("camera", camera, required=False, limit=MAX_NAME)
    if problem is not None:
        return problem
    if (start is None) != (end is None):
        return "window_start and window_end go together: give both"
    if start is not None and end is not None and end < start:
        return f"window_end {iso(end)} is before window_start {iso(start)}"
    return None


def _step(
    case: Case,
    kind: StepKind,
    actor: Actor,
    now_ms: int,
    *,
    note: str = "",
    reason: str = "",
    **after: object,
) -> Step:
    changed = replace(
        case,
        steps=case.steps + 1,
        updated_at=now_ms,
        updated_by=actor.name,
        first_at=case.first_at if case.first_at is not None else now_ms,
        **after,  # type: ignore[arg-type]
    )
    return Step(kind, now_ms, actor.name, actor.role.value, note, reason, changed)


def _closed_words(case: Case) -> str:
    return f"closed ({case.disposition}) by {case.updated_by} at {iso(case.updated_at)}"


def _state_words(case: Case) -> str:
    if case.state is CaseState.IN_REVIEW:
        since = case.assigned_at if case.assigned_at is not None else case.updated_at
        return f"in review by {case.assignee} since {iso(since)}"
    if case.state is CaseState.CLOSED:
        return _closed_words(case)
    return "open"
