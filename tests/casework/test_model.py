"""The casework rule (tablewatch.casework.model.decide): every transition and refusal."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from tablewatch.access.roles import Role
from tablewatch.casework.dispositions import (
    DEFAULT_DISPOSITIONS,
    dispositions_refusal,
    parse_dispositions,
)
from tablewatch.casework.model import (
    Actor,
    Bookmark,
    Case,
    CaseState,
    Claim,
    Close,
    Command,
    FindingRef,
    Link,
    Note,
    Refusal,
    Release,
    Reopen,
    Step,
    StepKind,
    Unchanged,
    decide,
)

T0 = 1_796_000_000_000  # 2026-11-30T00:53:20.000Z
NOW = T0 + 60_000
FINDING = FindingRef(
    "f1", "T1", "R1", "BET_AFTER_LOCKOUT", "critical", "A", T0 - 5_000,
    camera="cam-1", window_start=T0 - 40_000, window_end=T0 + 30_000,
)  # fmt: skip
ALICE = Actor("alice", Role.SURVEILLANCE)
BOB = Actor("bob", Role.SURVEILLANCE)
ADMIN = Actor("root", Role.ADMIN)
FLOOR = Actor("fm", Role.FLOOR_MANAGER)
AUDITOR = Actor("aud", Role.AUDITOR)
OK_CLOSE = Close("duplicate", note="same as f0", recovered_cents=2500)


def open_case() -> Case:
    return replace(
        Case.unopened(FINDING), steps=2, updated_at=T0, updated_by="bob", first_at=T0 - 1
    )


def in_review(by: str = "alice") -> Case:
    return replace(
        open_case(), state=CaseState.IN_REVIEW, assignee=by, assigned_at=T0, updated_at=T0 + 5
    )


def closed() -> Case:
    return replace(open_case(), state=CaseState.CLOSED, disposition="duplicate", updated_by="alice")


@dataclass(frozen=True)
class Row:
    name: str
    case: Case | None
    command: Command
    actor: Actor
    # a step: its kind and the state and assignee after it; Unchanged; or a refusal's
    # status and a piece of its reason
    kind: StepKind | None = None
    state: CaseState | None = None
    assignee: str = ""
    status: int | None = None
    reason: str = ""


ROWS = [
    # claim
    Row("claim unopened", None, Claim(), ALICE, StepKind.CLAIMED, CaseState.IN_REVIEW, "alice"),
    Row("claim open", open_case(), Claim(), ALICE, StepKind.CLAIMED, CaseState.IN_REVIEW, "alice"),
    Row("claim own", in_review(), Claim(), ALICE),
    Row("claim held", in_review("bob"), Claim(), ALICE, status=409,
        reason="in review by bob since 2026-11-30T00:53:20.000Z"),
    Row("claim closed", closed(), Claim(), ALICE, status=409,
        reason="closed (duplicate) by alice at 2026-11-30T00:53:20.000Z: reopen it first"),
    Row("claim floor manager", None, Claim(), FLOOR, status=403, reason="may not work cases"),
    Row("claim auditor", None, Claim(), AUDITOR, status=403, reason="role auditor"),
    # release
    Row("release own", in_review(), Release("lunch"), ALICE, StepKind.RELEASED, CaseState.OPEN),
    Row("release by admin", in_review(), Release(), ADMIN, StepKind.RELEASED, CaseState.OPEN),
    Row("release another's", in_review("bob"), Release(), ALICE, status=403,
        reason="in review by bob"),
    Row("release open", open_case(), Release(), ALICE, status=409, reason="nobody has claimed"),
    Row("release closed", closed(), Release(), ALICE, status=409, reason="reopen it first"),
    # note
    Row("note open", None, Note("seen"), ALICE, StepKind.NOTED, CaseState.OPEN),
    Row("note someone else's review", in_review("bob"), Note("seen"), ALICE, StepKind.NOTED,
        CaseState.IN_REVIEW, "bob"),
    Row("note closed", closed(), Note("late"), ALICE, status=409, reason="reopen it first"),
    Row("note empty", None, Note("  "), ALICE, status=422, reason="note is required"),
    Row("note control char", None, Note("a\x1bb"), ALICE, status=422, reason="U+001B"),
    Row("note too long", None, Note("x" * 2001), ALICE, status=422, reason="over 2,000"),
    Row("note floor manager", None, Note("x"), FLOOR, status=403, reason="may not work cases"),
    # bookmark
    Row("bookmark defaults", None, Bookmark(), ALICE, StepKind.BOOKMARKED, CaseState.OPEN),
    Row("bookmark closed", closed(), Bookmark(), ALICE, status=409, reason="reopen it first"),
    Row("bookmark backwards", None, Bookmark("cam-2", T0, T0 - 1), ALICE, status=422,
        reason="window_end 2026-11-30T00:53:19.999Z is before window_start"),
    # link
    Row("link", None, Link(("f2",)), ALICE, StepKind.LINKED, CaseState.OPEN),
    Row("link none", None, Link(()), ALICE, status=422, reason="finding_ids is required"),
    Row("link itself", None, Link(("f1",)), ALICE, status=422, reason="this case's own"),
    Row("link closed", closed(), Link(("f2",)), ALICE, status=409, reason="reopen it first"),
    # close
    Row("close own", in_review(), OK_CLOSE, ALICE, StepKind.CLOSED, CaseState.CLOSED),
    Row("close by admin", in_review(), OK_CLOSE, ADMIN, StepKind.CLOSED, CaseState.CLOSED),
    Row("close another's", in_review("bob"), OK_CLOSE, ALICE, status=403,
        reason="in review by bob: only they (or an admin) may close it"),
    Row("close open", open_case(), OK_CLOSE, ALICE, status=409, reason="claim it before"),
    Row("close unopened", None, OK_CLOSE, ALICE, status=409, reason="claim it before"),
    Row("close closed", closed(), OK_CLOSE, ALICE, status=409, reason="reopen it first"),
    Row("close floor manager", in_review("fm"), OK_CLOSE, FLOOR, status=403,
        reason="may not work cases"),
    Row("close unknown disposition", in_review(), Close("fine"), ALICE, status=422,
        reason="'fine' is not one of the configured list: confirmed: corrected at the table; "
        "confirmed: not corrected, referred; not an error: controller fault; not an error: "
        "rules configuration; duplicate"),
    Row("close negative money", in_review(), Close("duplicate", recovered_cents=-1), ALICE,
        status=422, reason="recovered_cents -1"),
    Row("close half a window", in_review(), Close("duplicate", window_start=T0), ALICE,
        status=422, reason="give both"),
    # reopen
    Row("reopen", closed(), Reopen("new video"), BOB, StepKind.REOPENED, CaseState.OPEN),
    Row("reopen no reason", closed(), Reopen(""), BOB, status=422, reason="reason is required"),
    Row("reopen open", open_case(), Reopen("x"), BOB, status=409, reason="only a closed case"),
    Row("reopen in review", in_review(), Reopen("x"), BOB, status=409,
        reason="in review by alice"),
    Row("reopen floor manager", closed(), Reopen("x"), FLOOR, status=403, reason="may not"),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_decide(row: Row) -> None:
    before = row.case if row.case is not None else Case.unopened(FINDING)
    outcome = decide(row.case, FINDING, row.command, row.actor, NOW, DEFAULT_DISPOSITIONS)
    if row.status is not None:
        assert isinstance(outcome, Refusal), outcome
        assert outcome.status == row.status
        assert row.reason in outcome.reason
    elif row.kind is None:
        assert outcome == Unchanged(before)
    else:
        assert isinstance(outcome, Step), outcome
        assert outcome.kind is row.kind
        assert outcome.case.state is row.state
        assert outcome.case.assignee == row.assignee
        assert (outcome.at, outcome.by, outcome.role) == (NOW, row.actor.name, row.actor.role)
        assert outcome.case.steps == before.steps + 1
        assert (outcome.case.updated_at, outcome.case.updated_by) == (NOW, row.actor.name)
        assert outcome.case.first_at == (before.first_at or NOW)
        assert outcome.case.finding_id == "f1" and outcome.case.pit == "A"


def test_close_keeps_what_the_case_holds() -> None:
    outcome = decide(in_review(), FINDING, OK_CLOSE, ALICE, NOW, DEFAULT_DISPOSITIONS)
    assert isinstance(outcome, Step)
    case = outcome.case
    assert (case.disposition, case.recovered_cents, outcome.note) == (
        "duplicate", 2500, "same as f0",
    )  # fmt: skip
    assert case.assignee == "" and case.camera == "" and case.window_start is None


def test_bookmark_defaults_from_the_round_then_kept() -> None:
    first = decide(None, FINDING, Bookmark(), ALICE, NOW, DEFAULT_DISPOSITIONS)
    assert isinstance(first, Step)
    assert (first.case.camera, first.case.window_start, first.case.window_end) == (
        "cam-1", T0 - 40_000, T0 + 30_000,
    )  # fmt: skip
    second = decide(first.case, FINDING, Bookmark(camera="cam-9"), ALICE, NOW + 1, ["x"])
    assert isinstance(second, Step)
    assert (second.case.camera, second.case.window_start) == ("cam-9", T0 - 40_000)


def test_links_accumulate_and_a_repeat_changes_nothing() -> None:
    first = decide(None, FINDING, Link(("f2", "f3")), ALICE, NOW, DEFAULT_DISPOSITIONS)
    assert isinstance(first, Step)
    second = decide(first.case, FINDING, Link(("f3", "f4")), ALICE, NOW, DEFAULT_DISPOSITIONS)
    assert isinstance(second, Step) and second.case.links == ("f2", "f3", "f4")
    again = decide(second.case, FINDING, Link(("f2",)), ALICE, NOW, DEFAULT_DISPOSITIONS)
    assert again == Unchanged(second.case)


def test_a_claim_after_release_and_reopen_is_a_new_review() -> None:
    claimed = decide(None, FINDING, Claim(), ALICE, NOW, DEFAULT_DISPOSITIONS)
    assert isinstance(claimed, Step) and claimed.case.assigned_at == NOW
    released = decide(claimed.case, FINDING, Release(), ALICE, NOW + 1, DEFAULT_DISPOSITIONS)
    assert isinstance(released, Step) and released.case.assigned_at is None
    again = decide(released.case, FINDING, Claim(), BOB, NOW + 2, DEFAULT_DISPOSITIONS)
    assert isinstance(again, Step) and again.case.assignee == "bob"
    assert again.case.steps == 3 and again.case.first_at == NOW


def test_configured_dispositions_are_the_ones_accepted() -> None:
    outcome = decide(in_review(), FINDING, Close("ok"), ALICE, NOW, ("ok",))
    assert isinstance(outcome, Step) and outcome.case.disposition == "ok"
    refused = decide(in_review(), FINDING, OK_CLOSE, ALICE, NOW, ("ok",))
    assert refused == Refusal(422, "disposition 'duplicate' is not one of the configured list: ok")


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        ([], "the list is empty"),
        (["a", "a"], "item 2 ('a') is given twice"),
        (["a", 3], "item 2 is not text"),
        (["a\nb"], "item 1 holds a line feed or tab"),
        (["x" * 101], "over 100"),
        ([""], "item 1 is required"),
    ],
)
def test_dispositions_refused(values: list[object], reason: str) -> None:
    problem = dispositions_refusal(values)
    assert problem is not None and reason in problem
    with pytest.raises(ValueError, match=r"casework\.dispositions"):
        parse_dispositions(values)


def test_default_dispositions_are_valid() -> None:
    assert parse_dispositions(list(DEFAULT_DISPOSITIONS)) == DEFAULT_DISPOSITIONS
