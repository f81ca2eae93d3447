r"""A small store for the shift report, written row by row so that every expected value of
the tests is counted by hand: findings on both sides of the day shift's edges, cases in
every state, steps taken before and after the shift's end.

The rules file (:data:`RULES_YAML`): America/New_York, shifts day 06:00-14:00, swing
14:00-22:00, grave 22:00-06:00; Pit 1 holds T-1 and T-2, Pit 2 holds T-3. On 2026-03-10
(EDT, UTC-4) the day shift is 10:00Z to 18:00Z, the swing 18:00Z to 02:00Z.

finding  time (Z)              table round dealer check              exp  paid  case at 18:00Z
F1   03-10 11:00          T-1  R1   D-7  WRONG_PAYOUT       2500 5000  closed (sam), notes
F2   03-10 12:00          T-2  R2   D-8  VOID_NOT_RETURNED  1000 0     in review (sue)*
F3   03-10 13:00          T-3  R3   D-7  BET_AFTER_LOCKOUT  -    500   none: open
F4   03-10 14:00 judged   T-1  -    -    SEQUENCE_GAP       -    -     none: open
F5   03-10 17:59:59.999   T-1  R5   D-8  WRONG_PAYOUT       100  0     released: open
F6   03-10 18:00:00.000   T-2  R6   D-7  WRONG_PAYOUT       300  600   (swing) closed 18:45
F7   03-09 20:00          T-3  R7   D-9  WRONG_PAYOUT       200  400   in review (sam)**
F8   03-09 09:00          T-1  R8   D-9  WRONG_PAYOUT       200  400   closed 03-09
F9   03-09 21:00          T-2  R9   D-9  UNEQUAL_BETS       500  3000  none: open
F10  03-09 08:00          T-1  R10  D-9  WRONG_PAYOUT       700  900   reopened 03-10 11:30

\* closed at 18:30Z, after the day shift; \*\* closed 03-10 19:00Z, during the swing.

Besides: F3 stored twice (one finding), and F11, a finding of R1 from an older judgement
than the round's latest (judged 10:00, the round 11:00): not shown, as ``findings_v``
does not show it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate

RULES_YAML = """\
timezone: America/New_York
contacts:
  surveillance: {email: surveillance@casino.example}
shifts:
  day:   {start: "06:00", end: "14:00"}
  swing: {start: "14:00", end: "22:00"}
  grave: {start: "22:00", end: "06:00"}
pits:
  Pit 1:
    tables: [T-1, T-2]
    on_call: {day: [surveillance], swing: [surveillance], grave: [surveillance]}
  Pit 2:
    tables: [T-3]
    on_call: {day: [surveillance], swing: [surveillance], grave: [surveillance]}
fallback: [surveillance]
rules:
  - name: all
"""
NOTE_F1 = "Paid 2x on a pair; pit boss Ana recovered it at the table"

# finding, table, round, dealer, check, severity, expected, actual, time (None: table-level)
FINDINGS: list[tuple[str, str, str, str | None, str, str, int | None, int | None, str]] = [
    ("F1", "T-1", "R1", "D-7", "WRONG_PAYOUT", "critical", 2500, 5000, "2026-03-10T11:00:00.000"),
    ("F2", "T-2", "R2", "D-8", "VOID_NOT_RETURNED", "high", 1000, 0, "2026-03-10T12:00:00.000"),
    ("F3", "T-3", "R3", "D-7", "BET_AFTER_LOCKOUT", "medium", None, 500, "2026-03-10T13:00:00.000"),
    ("F4", "T-1", "", None, "SEQUENCE_GAP", "low", None, None, "2026-03-10T14:00:00.000"),
    ("F5", "T-1", "R5", "D-8", "WRONG_PAYOUT", "high", 100, 0, "2026-03-10T17:59:59.999"),
    ("F6", "T-2", "R6", "D-7", "WRONG_PAYOUT", "high", 300, 600, "2026-03-10T18:00:00.000"),
    ("F7", "T-3", "R7", "D-9", "WRONG_PAYOUT", "high", 200, 400, "2026-03-09T20:00:00.000"),
    ("F8", "T-1", "R8", "D-9", "WRONG_PAYOUT", "high", 200, 400, "2026-03-09T09:00:00.000"),
    ("F9", "T-2", "R9", "D-9", "UNEQUAL_BETS", "medium", 500, 3000, "2026-03-09T21:00:00.000"),
    ("F10", "T-1", "R10", "D-9", "WRONG_PAYOUT", "high", 700, 900, "2026-03-09T08:00:00.000"),
]  # fmt: skip

# finding, kind, at, by, note, reason, state, assignee, disposition, recovered
STEPS: list[tuple[str, str, str, str, str, str, str, str, str, int]] = [
    ("F1", "claimed", "2026-03-10T11:05:00.000", "sam", "", "", "in_review", "sam", "", 0),
    ("F1", "noted", "2026-03-10T11:10:00.000", "sam", NOTE_F1, "", "in_review", "sam", "", 0),
    ("F1", "closed", "2026-03-10T11:20:00.000", "sam", "closed at the table", "", "closed", "",
     "confirmed: corrected at the table", 2500),
    ("F2", "claimed", "2026-03-10T12:30:00.000", "sue", "", "", "in_review", "sue", "", 0),
    ("F2", "closed", "2026-03-10T18:30:00.000", "sue", "", "", "closed", "",
     "confirmed: not corrected, referred", 0),
    ("F5", "claimed", "2026-03-10T15:00:00.000", "sam", "", "", "in_review", "sam", "", 0),
    ("F5", "released", "2026-03-10T15:30:00.000", "sam", "", "wrong table on the video",
     "open", "", "", 0),
    ("F6", "claimed", "2026-03-10T18:10:00.000", "sue", "", "", "in_review", "sue", "", 0),
    ("F6", "closed", "2026-03-10T18:45:00.000", "sue", "", "", "closed", "", "duplicate", 0),
    ("F7", "claimed", "2026-03-09T20:30:00.000", "sam", "", "", "in_review", "sam", "", 0),
    ("F7", "closed", "2026-03-10T19:00:00.000", "sam", "", "", "closed", "",
     "confirmed: corrected at the table", 200),
    ("F8", "claimed", "2026-03-09T09:10:00.000", "sam", "", "", "in_review", "sam", "", 0),
    ("F8", "closed", "2026-03-09T09:20:00.000", "sam", "", "", "closed", "", "duplicate", 0),
    ("F10", "claimed", "2026-03-09T08:10:00.000", "sue", "", "", "in_review", "sue", "", 0),
    ("F10", "closed", "2026-03-09T08:20:00.000", "sue", "", "", "closed", "", "duplicate", 0),
    ("F10", "reopened", "2026-03-10T11:30:00.000", "ann", "", "video shows a second payout",
     "open", "", "", 0),
]  # fmt: skip


FINDING_COLUMNS = [
    "finding_id", "table_id", "round_id", "start_event_id", "check", "severity", "regulation",
    "seat", "bet", "expected", "actual", "message", "event_ids", "ts", "judged_at",
]  # fmt: skip


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def fill_shift_store(directory: Path) -> str:
    """A migrated store at ``directory`` holding :data:`FINDINGS` and :data:`STEPS`
    (with their rounds and the table directory); the DSN."""
    dsn = f"chdb:///{directory}"
    client = connect(dsn)
    try:
        migrate(client)
        directory_rows = [
            [t, "let_it_ride", "", ["cam-" + t], "{}", "0" * 64, _at("2026-03-01T00:00:00")]
            for t in ("T-1", "T-2", "T-3")
        ]
        client.insert(
            "table_directory", directory_rows,
            column_names=["table_id", "game", "pit", "cameras", "config", "config_sha256",
                          "updated_at"],
        )  # fmt: skip
        findings: list[list[Any]] = []
        rounds: list[list[Any]] = []
        for fid, table, round_id, dealer, check, severity, expected, actual, ts in FINDINGS:
            when = _at(ts)
            findings.append([fid, table, round_id, f"e-{fid}" if round_id else "", check,
                             severity, "", None, "", expected, actual, f"message of {fid}", [],
                             when if round_id else None, when])  # fmt: skip
            if round_id:
                rounds.append([table, round_id, f"e-{fid}", "let_it_ride", when, when, dealer,
                               None, 1, 0, 0, False, True, 1, when])  # fmt: skip
        client.insert("findings", findings, column_names=FINDING_COLUMNS)
        f3 = next(f for f in findings if f[0] == "F3")
        stale: list[Any] = [
            "F11", "T-1", "R1", "e-F1", "WRONG_PAYOUT", "critical", "", None, "", 100, 0,
            "an older judgement's", [], _at("2026-03-10T11:00:00"), _at("2026-03-10T10:00:00"),
        ]  # fmt: skip
        client.insert("findings", [list(f3), stale], column_names=FINDING_COLUMNS)
        client.insert(
            "rounds", rounds,
            column_names=["table_id", "round_id", "start_event_id", "game", "start_ts",
                          "end_ts", "dealer_id", "deck_id", "seats", "wagered", "paid",
                          "voided", "complete", "finding_count", "judged_at"],
        )  # fmt: skip
        copied = {f[0]: f for f in FINDINGS}
        numbers: dict[str, int] = {}
        steps: list[list[Any]] = []
        for fid, kind, at, by, note, reason, state, assignee, disposition, cents in STEPS:
            numbers[fid] = numbers.get(fid, 0) + 1
            f = copied[fid]
            steps.append([fid, numbers[fid], kind, _at(at), by, "surveillance", note, reason,
                          state, assignee, disposition, cents, "", None, None, [], f[1], f[2],
                          f[4], f[5], "", _at(f[8])])  # fmt: skip
        client.insert(
            "case_events", steps,
            column_names=["finding_id", "step", "kind", "at", "by", "role", "note", "reason",
                          "state", "assignee", "disposition", "recovered_cents", "camera",
                          "window_start", "window_end", "links", "table_id", "round_id",
                          "check", "severity", "pit", "finding_ts"],
        )  # fmt: skip
    finally:
        client.close()
    return dsn


def write_rules(directory: Path) -> Path:
    path = directory / "alerts.yaml"
    path.write_text(RULES_YAML, encoding="utf-8")
    return path
