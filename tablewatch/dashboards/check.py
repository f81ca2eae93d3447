"""``tablewatch dashboards check``: every panel's SQL run on the store as Grafana sends it.

Each panel's SQL is expanded (:mod:`.macros`) over the dashboard's default time range
(or the one given) with every variable at "All" (or the values given), run through a
read-only reader (the tables the Grafana user may read: ``READABLE``), and reported with
its columns, rows and time; a panel whose columns are not the ones it reads, or whose
SQL fails, is a problem.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tablewatch.dashboards.macros import MacroError, Selection, TimeRange, expand
from tablewatch.dashboards.panels import DashboardSpec, PanelSql
from tablewatch.dashboards.variables import NAMES

Runner = Callable[[str], tuple[Sequence[str], Sequence[Sequence[Any]]]]

_UNITS_MS = {"s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}


def default_range(spec: DashboardSpec, now_ms: int) -> TimeRange:
    """The dashboard's default range (``now-6h`` .. now) ending at ``now_ms``."""
    text = spec.default_from
    if not text.startswith("now-") or text[-1] not in _UNITS_MS:
        raise ValueError(f"{spec.uid}: default time range {text!r} is not now-N[smhdw]")
    span = int(text[4:-1]) * _UNITS_MS[text[-1]]
    return TimeRange(now_ms - span, now_ms)


@dataclass(frozen=True, slots=True)
class PanelCheck:
    dashboard: str
    panel: str
    columns: tuple[str, ...]
    rows: int
    seconds: float
    sql: str
    problem: str = ""
    first_rows: tuple[tuple[Any, ...], ...] = field(default=(), repr=False)

    @property
    def ok(self) -> bool:
        return not self.problem


def check_panel(
    spec: DashboardSpec,
    panel: PanelSql,
    run: Runner,
    time_range: TimeRange,
    selection: Selection,
) -> PanelCheck:
    try:
        sql = expand(panel.sql, time_range, selection, NAMES)
    except MacroError as exc:
        return PanelCheck(spec.uid, panel.name, (), 0, 0.0, panel.sql, f"macros: {exc}")
    start = time.perf_counter()
    try:
        columns, rows = run(sql)
    except Exception as exc:  # the store's refusal or error, reported per panel
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return PanelCheck(
            spec.uid, panel.name, (), 0, time.perf_counter() - start, sql, f"failed: {first}"
        )
    seconds = time.perf_counter() - start
    got = tuple(str(c) for c in columns)
    problem = "" if got == panel.columns else f"columns {list(got)}, expected {list(panel.columns)}"
    return PanelCheck(
        spec.uid, panel.name, got, len(rows), seconds, sql, problem,
        tuple(tuple(r) for r in rows[:5]),
    )  # fmt: skip


def check_dashboards(
    specs: Sequence[DashboardSpec],
    run: Runner,
    *,
    now_ms: int | None = None,
    time_range: TimeRange | None = None,
    values: Mapping[str, Sequence[str]] | None = None,
) -> list[PanelCheck]:
    """Every panel of ``specs``, in order."""
    now = now_ms if now_ms is not None else int(time.time() * 1000)
    selection = Selection(values or {})
    out = []
    for spec in specs:
        window = time_range or default_range(spec, now)
        for panel in spec.panels:
            out.append(check_panel(spec, panel, run, window, selection))
    return out
