"""Printing findings for people (aligned lines, a summary table) and for machines (JSON lines)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import msgspec
from rich.console import Console
from rich.table import Table

from tablewatch.finding_money import money_text
from tablewatch.rules.checks.catalog import CHECKS
from tablewatch.rules.findings import Finding

_JSON = msgspec.json.Encoder()
SEVERITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def finding_json(finding: Finding) -> bytes:
    return _JSON.encode(finding.as_dict())


def money(cents: int | None) -> str:
    return "-" if cents is None else f"${cents / 100:,.2f}"


def finding_line(finding: Finding) -> str:
    where = " ".join(
        part
        for part in (
            finding.table_id,
            finding.round_id or "(table)",
            f"seat {finding.seat}" if finding.seat is not None else "",
            finding.bet or "",
        )
        if part
    )
    shown = money_text(finding.check, finding.expected, finding.actual)
    money_part = f" {shown};" if shown else ""
    evidence = ",".join(finding.event_ids)
    return (
        f"{finding.severity.upper():8} {finding.check:27} {where}:{money_part} "
        f"{finding.message} [{finding.regulation}] [{evidence}]"
    )


def summary_table(counts: Mapping[str, int], title: str) -> Table:
    table = Table(title=title, show_lines=False)
    table.add_column("check")
    table.add_column("severity")
    table.add_column("findings", justify="right")
    ordered = sorted(counts.items(), key=lambda kv: (SEVERITY_ORDER[CHECKS[kv[0]].severity], kv[0]))
    for code, count in ordered:
        table.add_row(code, CHECKS[code].severity, f"{count:,}")
    table.add_row("total", "", f"{sum(counts.values()):,}")
    return table


def print_summary(console: Console, counts: Counter[str], stats_line: str) -> None:
    if counts:
        console.print(summary_table(counts, "Findings by check"))
    else:
        console.print("No findings.")
    console.print(stats_line)
