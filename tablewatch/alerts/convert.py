"""A finding from the ``findings`` topic, or a silent controller, as an :class:`Alert`.

Pure: the rules file decides whether a finding alerts anyone and which pit it belongs
to; the time of the raise is given (the findings message's Kafka timestamp, so the
same message read again raises the same alert at the same time).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from tablewatch.alerts.model import Alert, iso_ms, stable_id
from tablewatch.alerts.rules_file import SILENT_CHECK, SILENT_SEVERITY, AlertRules
from tablewatch.finding_money import money_text
from tablewatch.links import round_path, table_path
from tablewatch.report import money
from tablewatch.rules.checks.catalog import PATTERN_CHECKS
from tablewatch.rules.findings import Finding
from tablewatch.store.rows import finding_id

FINDING_FIELDS = ("table_id", "round_id", "check", "regulation", "message")


class NotAFinding(ValueError):
    """A findings message without the fields of a finding."""


def finding_of(message: Mapping[str, Any]) -> tuple[Finding, str]:
    """The finding of a ``findings`` message, and its id as the store keeps it."""
    for name in FINDING_FIELDS:
        if name not in message:
            raise NotAFinding(f"no {name!r}")
    finding = Finding(
        table_id=str(message["table_id"]),
        round_id=message["round_id"],
        check=str(message["check"]),
        regulation=str(message["regulation"]),
        message=str(message["message"]),
        seat=message.get("seat"),
        bet=message.get("bet"),
        expected=message.get("expected"),
        actual=message.get("actual"),
        event_ids=tuple(message.get("event_ids") or ()),
        ts=message.get("ts"),
    )
    given = message.get("finding_id")
    if isinstance(given, str) and given:
        return finding, given
    return finding, finding_id(finding, start_event_id=str(message.get("start_event_id") or ""))


def round_url(base: str, table_id: str, round_id: str) -> str:
    """The auditor page of a round: ``{base}/rounds/{table_id}/{round_id}``."""
    return base + round_path(table_id, round_id)


def _difference(expected: int | None, actual: int | None) -> str:
    if expected is None or actual is None or expected == actual:
        return ""
    delta = actual - expected
    return f"{money(abs(delta))} {'over' if delta > 0 else 'under'}"


def alert_of_finding(
    message: Mapping[str, Any],
    rules: AlertRules,
    *,
    raised_ms: int,
    game: str = "",
    configured_pit: str | None = None,
) -> Alert | None:
    """The alert a finding raises, or None when no rule of ``rules`` wants it."""
    finding, fid = finding_of(message)
    severity = str(message.get("severity") or finding.severity)
    pit = rules.pit_of(finding.table_id, configured_pit)
    wanted = rules.wanted(check=finding.check, severity=severity, pit=pit,
                          table_id=finding.table_id, game=game)  # fmt: skip
    if not wanted:
        return None
    where = finding.table_id
    seat_bet = " ".join(
        p for p in (f"seat {finding.seat}" if finding.seat else "", finding.bet or "") if p
    )
    if seat_bet:
        where += f" {seat_bet}"
    shown = money_text(finding.check, finding.expected, finding.actual)
    amounts = f": {shown}" if shown else ""
    if finding.check in PATTERN_CHECKS:  # no money: the unit and the statistic, as the mail's
        amounts = f": {finding.message}"
    url = (
        round_url(rules.auditor_url, finding.table_id, finding.round_id)
        if finding.round_id
        else rules.auditor_url + table_path(finding.table_id)
    )
    alert_id = stable_id("finding", fid)
    annotations = {
        "summary": f"{finding.check} at {where} ({pit}){amounts}",
        "message": finding.message,
        "regulation": finding.regulation,
        "expected": money(finding.expected) if finding.expected is not None else "",
        "actual": money(finding.actual) if finding.actual is not None else "",
        "difference": _difference(finding.expected, finding.actual),
        "money": shown,
        "round_id": finding.round_id or "",
        "round_url": url if finding.round_id else "",
        "seat": str(finding.seat) if finding.seat else "",
        "bet": finding.bet or "",
        "finding_ids": fid,
        "occurred_at": finding.ts or "",
        "ack": f"tablewatch alerts ack {alert_id} --by NAME",
    }
    shift = rules.shift_at(datetime.fromtimestamp(raised_ms / 1000, UTC))
    return Alert(
        alert_id=alert_id, kind="finding", table_id=finding.table_id, pit=pit,
        game=game or "unknown", check=finding.check, severity=severity, raised_ms=raised_ms,
        finding_ids=(fid,), annotations=annotations, generator_url=url, shifts=(shift,),
        level_ms=(raised_ms,),
    )  # fmt: skip


def alert_of_silence(
    table_id: str,
    rules: AlertRules,
    *,
    last_heard_ms: int,
    silent_for_s: float,
    raised_ms: int,
    game: str = "",
    configured_pit: str | None = None,
) -> Alert | None:
    """The alert of a table open and silent since ``last_heard_ms``, or None when no rule
    wants ``CONTROLLER_SILENT`` there."""
    pit = rules.pit_of(table_id, configured_pit)
    wanted = rules.wanted(check=SILENT_CHECK, severity=SILENT_SEVERITY, pit=pit,
                          table_id=table_id, game=game)  # fmt: skip
    if not wanted:
        return None
    alert_id = stable_id("silent", table_id, last_heard_ms)
    minutes = silent_for_s / 60
    url = rules.auditor_url + table_path(table_id)
    annotations = {
        "summary": f"{SILENT_CHECK} at {table_id} ({pit}): open, no event for {minutes:g} min",
        "message": (
            f"the controller of {table_id} sent nothing since {iso_ms(last_heard_ms)} while "
            f"the table is open: its findings are not being judged"
        ),
        "regulation": "",
        "last_heard_at": iso_ms(last_heard_ms),
        "round_url": "",
        "finding_ids": "",
        "ack": f"tablewatch alerts ack {alert_id} --by NAME",
    }
    shift = rules.shift_at(datetime.fromtimestamp(raised_ms / 1000, UTC))
    return Alert(
        alert_id=alert_id, kind="silent", table_id=table_id, pit=pit, game=game or "unknown",
        check=SILENT_CHECK, severity=SILENT_SEVERITY, raised_ms=raised_ms, finding_ids=(),
        annotations=annotations, generator_url=url, shifts=(shift,), level_ms=(raised_ms,),
        extra={"last_heard_ms": last_heard_ms},
    )  # fmt: skip
