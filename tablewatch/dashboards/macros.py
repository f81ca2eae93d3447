"""The ClickHouse plugin's macros and Grafana's variables, expanded as Grafana would.

``tablewatch dashboards check`` runs each panel's SQL on the store as the panel would
send it. In Grafana the plugin's frontend first replaces ``$__conditionalAll(cond,
$var)`` (``1=1`` when ``$var`` is "All", else ``cond``), Grafana then interpolates the
variables (``${var:singlequote}`` -> ``'a','b'``; ``$var``, ``${var}`` -> ``a,b``), and
the plugin's backend expands the time macros (the Go functions of the plugin's
``pkg/macros``), which this module does the same way:

| macro | expands to |
|---|---|
| ``$__timeFilter(c)`` | ``c >= toDateTime(FROM_S) AND c <= toDateTime(TO_S)`` |
| ``$__timeFilter_ms(c)`` | ``c >= fromUnixTimestamp64Milli(FROM_MS) AND c <= ...(TO_MS)`` |
| ``$__dateFilter(c)`` | ``c >= toDate('YYYY-MM-DD') AND c <= toDate('YYYY-MM-DD')`` |
| ``$__fromTime``, ``$__toTime`` | ``toDateTime(S)`` |
| ``$__fromTime_ms``, ``$__toTime_ms`` | ``fromUnixTimestamp64Milli(MS)`` |
| ``$__timeInterval(c)`` | ``toStartOfInterval(toDateTime(c), INTERVAL N second)`` |
| ``$__timeInterval_ms(c)`` | ``toStartOfInterval(toDateTime64(c, 3), INTERVAL N millisecond)`` |
| ``$__interval_s`` | ``N`` (seconds, at least 1) |

The interval is Grafana's: the time range over the panel's data points, rounded up to
one of Grafana's round intervals.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from tablewatch.dashboards.variables import ALL

MAX_DATA_POINTS = 1000
ROUND_INTERVALS_MS = (
    1, 10, 20, 50, 100, 200, 500, 1_000, 5_000, 10_000, 15_000, 30_000, 60_000,
    300_000, 600_000, 900_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000,
    43_200_000, 86_400_000, 604_800_000, 2_592_000_000, 31_536_000_000,
)  # fmt: skip
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_VARIABLE = re.compile(r"\$\{(" + _NAME + r")(?::(" + _NAME + r"))?\}|\$(" + _NAME + r")")


class MacroError(ValueError):
    """A macro or variable the SQL uses that cannot be expanded (named in the message)."""


@dataclass(frozen=True, slots=True)
class TimeRange:
    from_ms: int
    to_ms: int

    @property
    def from_s(self) -> int:
        return self.from_ms // 1000

    @property
    def to_s(self) -> int:
        return self.to_ms // 1000

    def interval_ms(self, points: int = MAX_DATA_POINTS) -> int:
        wanted = max((self.to_ms - self.from_ms) // max(points, 1), 1)
        return next((i for i in ROUND_INTERVALS_MS if i >= wanted), ROUND_INTERVALS_MS[-1])


@dataclass(frozen=True, slots=True)
class Selection:
    """The variables' values: a name absent, or given ``[ALL]``, is "All" (whose values,
    where SQL needs them outside ``$__conditionalAll``, are ``options``)."""

    values: Mapping[str, Sequence[str]] = field(default_factory=dict)
    options: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def is_all(self, name: str) -> bool:
        chosen = self.values.get(name)
        return chosen is None or list(chosen) == [ALL]

    def of(self, name: str) -> list[str]:
        if self.is_all(name):
            if name not in self.options:
                raise MacroError(f"variable ${name} is All and its options are not known")
            return list(self.options[name])
        return list(self.values[name])


def expand(sql: str, time_range: TimeRange, selection: Selection, defined: frozenset[str]) -> str:
    """``sql`` as the store receives it from the panel."""
    sql = _conditional_all(sql, selection, defined)
    sql = _variables(sql, selection, defined)
    return _time_macros(sql, time_range)


def used_variables(sql: str) -> set[str]:
    """The names of the dashboard variables ``sql`` refers to (not Grafana's ``$__`` ones)."""
    return {
        m.group(1) or m.group(3)
        for m in _VARIABLE.finditer(sql)
        if not (m.group(1) or m.group(3)).startswith("__")
    }


def _call(sql: str, name: str) -> tuple[int, int, list[str]] | None:
    """The last call of macro ``name`` in ``sql``: (start, end, arguments split at the
    commas outside parentheses and quotes)."""
    start = sql.rfind(f"{name}(")
    if start < 0:
        return None
    i = start + len(name) + 1
    depth, quote = 1, ""
    args: list[str] = []
    current: list[str] = []
    while i < len(sql):
        ch = sql[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(current).strip())
                return start, i + 1, args
        elif ch == "," and depth == 1:
            args.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(ch)
        i += 1
    raise MacroError(f"{name}( is never closed")


def _conditional_all(sql: str, selection: Selection, defined: frozenset[str]) -> str:
    while (call := _call(sql, "$__conditionalAll")) is not None:
        start, end, args = call
        if len(args) != 2:
            raise MacroError(f"$__conditionalAll takes a condition and a variable, got {args}")
        match = _VARIABLE.fullmatch(args[1])
        name = (match.group(1) or match.group(3)) if match else None
        if name is None or name not in defined:
            raise MacroError(f"$__conditionalAll names no dashboard variable: {args[1]!r}")
        phrase = "1=1" if selection.is_all(name) else args[0]
        sql = sql[:start] + phrase + sql[end:]
    return sql


def _quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _variables(sql: str, selection: Selection, defined: frozenset[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(3)
        if name.startswith("__"):
            return match.group(0)  # a macro, expanded later
        if name not in defined:
            raise MacroError(f"variable ${name} is not defined on the dashboard")
        values = selection.of(name)
        style = match.group(2)
        if style == "singlequote":
            return ",".join(_quote(v) for v in values)
        if style not in (None, "csv", "raw"):
            raise MacroError(f"format {style!r} of ${name} is not expanded here")
        return ",".join(values)

    return _VARIABLE.sub(replace, sql)


def _time_macros(sql: str, r: TimeRange) -> str:
    interval_ms = r.interval_ms()
    seconds = max(interval_ms // 1000, 1)
    day = "%Y-%m-%d"
    from_day = datetime.fromtimestamp(r.from_s, UTC).strftime(day)
    to_day = datetime.fromtimestamp(r.to_s, UTC).strftime(day)
    functions: dict[str, Callable[[str], str]] = {
        "$__timeFilter_ms": lambda c: (
            f"{c} >= fromUnixTimestamp64Milli({r.from_ms})"
            f" AND {c} <= fromUnixTimestamp64Milli({r.to_ms})"
        ),
        "$__timeFilter": lambda c: f"{c} >= toDateTime({r.from_s}) AND {c} <= toDateTime({r.to_s})",
        "$__dateFilter": lambda c: f"{c} >= toDate('{from_day}') AND {c} <= toDate('{to_day}')",
        "$__timeInterval_ms": lambda c: (
            f"toStartOfInterval(toDateTime64({c}, 3), INTERVAL {max(interval_ms, 1)} millisecond)"
        ),
        "$__timeInterval": lambda c: (
            f"toStartOfInterval(toDateTime({c}), INTERVAL {seconds} second)"
        ),
    }
    for name, render in functions.items():
        while (call := _call(sql, name)) is not None:
            start, end, args = call
            if len(args) != 1 or not args[0]:
                raise MacroError(f"{name} takes one column, got {args}")
            sql = sql[:start] + render(args[0]) + sql[end:]
    plain = {
        "$__fromTime_ms": f"fromUnixTimestamp64Milli({r.from_ms})",
        "$__toTime_ms": f"fromUnixTimestamp64Milli({r.to_ms})",
        "$__fromTime": f"toDateTime({r.from_s})",
        "$__toTime": f"toDateTime({r.to_s})",
        "$__interval_s": str(seconds),
    }
    for name, text in plain.items():
        sql = re.sub(re.escape(name) + r"(?![A-Za-z0-9_])", text, sql)
    left = re.search(r"\$__[A-Za-z_]+", sql)
    if left:
        raise MacroError(f"macro {left.group(0)} is not expanded here")
    return sql
