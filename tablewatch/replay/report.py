"""A replay's run and diff for people (lines of text) and machines (one JSON document)."""

from __future__ import annotations

from typing import Any

from tablewatch.replay.diff import DiffEntry, ReplayDiff
from tablewatch.replay.runs import ReplayRun
from tablewatch.report import money


def run_line(run: ReplayRun) -> str:
    tables = ",".join(run.tables) if run.tables else "every table"
    return (
        f"replay {run.run_id}: {run.status}; {run.source} ({run.range}), {tables}: "
        f"{run.events:,} events ({run.rejected:,} rejected), {run.rounds:,} rounds, "
        f"{run.findings:,} findings{' with the patterns' if run.patterns else ''}; "
        f"rules {run.rules_version}, config sha256 {run.config_sha256[:16]}"
    )


def diff_lines(diff: ReplayDiff) -> list[str]:
    """The diff's summary line, then one line per difference."""
    head = (
        f"diff against the live findings of the same {diff.rounds:,} rounds: "
        f"{diff.new:,} new, {diff.gone:,} gone, {diff.changed:,} changed"
    )
    if diff.rounds_not_live:
        head += f" ({diff.rounds_not_live:,} of the rounds are not in the live store)"
    if not diff.patterns:
        head += "; pattern checks left out (a run without --patterns)"
    lines = [head]
    lines.extend(entry_line(entry) for entry in diff.entries)
    if diff.truncated:
        shown = len(diff.entries)
        lines.append(f"... {diff.new + diff.gone + diff.changed - shown:,} more not shown")
    return lines


def entry_line(entry: DiffEntry) -> str:
    where = " ".join(
        part
        for part in (
            entry.table_id,
            entry.round_id or "(table)",
            f"seat {entry.seat}" if entry.seat is not None else "",
            entry.bet,
            entry.check,
        )
        if part
    )
    if entry.kind == "changed":
        what = (
            f"expected {money(entry.live_expected)} -> {money(entry.replay_expected)}, "
            f"actual {money(entry.live_actual)} -> {money(entry.replay_actual)} (live -> replay)"
        )
        if entry.live_severity != entry.replay_severity:
            what += f", severity {entry.live_severity} -> {entry.replay_severity}"
    elif entry.kind == "new":
        what = _amounts(entry.replay_expected, entry.replay_actual, entry.replay_message)
    else:
        what = _amounts(entry.live_expected, entry.live_actual, entry.live_message)
    return f"{entry.kind:7} {where}: {what}"


def _amounts(expected: int | None, actual: int | None, message: str | None) -> str:
    text = message or ""
    if expected is not None or actual is not None:
        text = f"expected {money(expected)} actual {money(actual)}; {text}"
    return text


def as_json(run: ReplayRun, diff: ReplayDiff | None) -> dict[str, Any]:
    return {"run": run.as_dict(), "diff": diff.as_dict() if diff is not None else None}
