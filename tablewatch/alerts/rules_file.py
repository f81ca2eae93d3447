"""The alert rules file (YAML): who is told of which findings, when, and how.

A file is refused whole, every problem on a line of its own as ``FILE:LINE: WHERE:
REASON`` (the line of the key or item at fault, from the YAML loader's marks), so a
site never runs with half a routing plan: an alert no one receives is a wrong "all
clear". The keys, their meaning and an example: ``docs/alerts.md`` and
``examples/alerts.yaml``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, time, tzinfo
from pathlib import Path
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml

from tablewatch import safe_yaml
from tablewatch.casework.dispositions import DEFAULT_DISPOSITIONS, dispositions_refusal
from tablewatch.rules.checks.catalog import CHECKS
from tablewatch.rules.games import names

SEVERITIES = ("low", "medium", "high", "critical")  # in rising order
SILENT_CHECK = "CONTROLLER_SILENT"  # the alerter's own check: a controller gone quiet
SILENT_SEVERITY = "high"
UNASSIGNED_PIT = "unassigned"  # the pit of a table no pit names: its chain is `fallback`
# patterns of a table or a dealer over a shift or more (tablewatch.patterns), no matter
# for the pit at this moment: told to the `fallback` chain (surveillance), not the pit's
# on call. A player's advantage play and a dealer favouring a seat go to the pit's.
SURVEILLANCE_CHECKS: Final = frozenset(
    {"HOLD_OUT_OF_BAND", "METER_INCREMENT_WRONG", "DEALER_ERROR_RATE_HIGH"}
)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.:/-]{0,63}$")  # contacts, pits, shifts, rules
_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
_CLOCK = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
_URL = re.compile(r"^https?://[^\s\"'\\]+$")
_EMAIL = re.compile(r"^[^@\s\"'\\,<>]+@[^@\s\"'\\,<>]+$")


class RulesError(ValueError):
    """A rules file that cannot be used: every problem, one line each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


# ---- the model ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Contact:
    name: str
    email: str | None = None
    webhook: str | None = None
    slack: str | None = None  # a Slack-compatible incoming webhook


@dataclass(frozen=True, slots=True)
class Shift:
    name: str
    start: time
    end: time  # == start of the next; an end before the start runs past midnight

    def holds(self, at: time) -> bool:
        if self.start < self.end:
            return self.start <= at < self.end
        return at >= self.start or at < self.end


@dataclass(frozen=True, slots=True)
class Pit:
    name: str
    tables: tuple[str, ...]  # table ids or shell patterns (LIR-*)
    on_call: Mapping[str, tuple[str, ...]]  # shift -> contacts, escalation 0, 1, ...
    silence_s: float | None = None  # no event for this long while open: CONTROLLER_SILENT


@dataclass(frozen=True, slots=True)
class Rule:
    """Findings that become alerts: every given condition holds (none given: all)."""

    name: str
    checks: frozenset[str] = frozenset()
    min_severity: str = "low"
    pits: frozenset[str] = frozenset()
    tables: tuple[str, ...] = ()
    games: frozenset[str] = frozenset()

    def matches(self, *, check: str, severity: str, pit: str, table_id: str, game: str) -> bool:
        if self.checks and check not in self.checks:
            return False
        if SEVERITIES.index(severity) < SEVERITIES.index(self.min_severity):
            return False
        if self.pits and pit not in self.pits:
            return False
        if self.tables and not any(fnmatch.fnmatchcase(table_id, p) for p in self.tables):
            return False
        return not (self.games and game not in self.games)


@dataclass(frozen=True, slots=True)
class Timing:
    """Alertmanager's grouping times and TableWatch's own (seconds)."""

    group_wait_s: float = 1.0
    group_interval_s: float = 3.0  # a busy table and check: a mail every 3 s at most
    repeat_interval_s: float = 4 * 3600.0
    resend_s: float = 30.0  # open alerts posted again (an Alertmanager restarted has none)
    expire_s: float = 24 * 3600.0  # an alert nobody acknowledged is closed after this


@dataclass(frozen=True, slots=True)
class Smtp:
    smarthost: str = "127.0.0.1:2525"
    sender: str = "tablewatch@localhost"
    require_tls: bool = True


@dataclass(frozen=True, slots=True)
class AlertRules:
    contacts: Mapping[str, Contact]
    shifts: tuple[Shift, ...]
    pits: tuple[Pit, ...]
    fallback: tuple[str, ...]  # the chain of tables no pit names
    rules: tuple[Rule, ...]
    escalation_s: tuple[float, ...] = ()  # level k+1 raised this long after the raise
    silence_s: float | None = 600.0  # the default of every pit; None: not watched
    silence_tables: Mapping[str, float] = field(default_factory=dict)
    timezone: tzinfo = field(default_factory=lambda: ZoneInfo("UTC"))
    auditor_url: str = "http://127.0.0.1:8000"
    timing: Timing = field(default_factory=Timing)
    smtp: Smtp = field(default_factory=Smtp)
    source: str = "<rules>"
    # what a case is closed with (casework: {dispositions: [...]}; tablewatch/casework)
    dispositions: tuple[str, ...] = DEFAULT_DISPOSITIONS

    def pit_of(self, table_id: str, configured: str | None = None) -> str:
        """The first pit whose tables name ``table_id``; else the pit the table
        configuration gives, if the rules file knows it; else :data:`UNASSIGNED_PIT`."""
        for pit in self.pits:
            if any(fnmatch.fnmatchcase(table_id, p) for p in pit.tables):
                return pit.name
        if configured is not None and any(p.name == configured for p in self.pits):
            return configured
        return UNASSIGNED_PIT

    def shift_at(self, at: datetime) -> str:
        local = at.astimezone(self.timezone).time().replace(second=0, microsecond=0)
        for shift in self.shifts:
            if shift.holds(local):
                return shift.name
        raise AssertionError(f"no shift holds {local} (the file was checked)")  # pragma: no cover

    def chain(self, pit: str, shift: str, check: str = "") -> tuple[str, ...]:
        """Who is told of an alert of ``check`` at ``pit`` in ``shift``, escalation 0, 1, ..."""
        if check in SURVEILLANCE_CHECKS:
            return self.fallback
        for p in self.pits:
            if p.name == pit:
                return p.on_call.get(shift) or self.fallback
        return self.fallback

    def wanted(self, *, check: str, severity: str, pit: str, table_id: str, game: str) -> bool:
        return any(
            r.matches(check=check, severity=severity, pit=pit, table_id=table_id, game=game)
            for r in self.rules
        )

    def silence_for(self, table_id: str, pit: str) -> float | None:
        if table_id in self.silence_tables:
            return self.silence_tables[table_id]
        for p in self.pits:
            if p.name == pit and p.silence_s is not None:
                return p.silence_s
        return self.silence_s

    def max_level(self, pit: str, shift: str, check: str = "") -> int:
        """The highest escalation level: the chain's last contact, or the last step."""
        return min(len(self.chain(pit, shift, check)) - 1, len(self.escalation_s))


# ---- loading ---------------------------------------------------------------------------


def parse_duration(text: str) -> float:
    """``90s``, ``5m``, ``1h30m`` -> seconds; ValueError otherwise."""
    match = _DURATION.match(text.strip()) if text.strip() else None
    if match is None or not any(match.groups()):
        raise ValueError(f"{text!r} is not a duration (like 30s, 5m, 1h30m)")
    hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    return float(hours * 3600 + minutes * 60 + seconds)


def go_duration(seconds: float) -> str:
    """Seconds as Alertmanager writes a duration (``90s`` -> ``1m30s``)."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "")
    return text + (f"{secs}s" if secs or not text else "")


@dataclass(slots=True)
class _Node:
    """A YAML value with the line it starts on (1-based)."""

    value: Any
    line: int


def _plain(node: yaml.Node) -> _Node:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out: dict[str, _Node] = {}
        keys: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in keys:
                raise _Problem(key_node.start_mark.line + 1, key, "given twice")
            keys[key] = key_node.start_mark.line + 1
            child = _plain(value_node)
            out[key] = _Node(child.value, key_node.start_mark.line + 1)
        return _Node(out, line)
    if isinstance(node, yaml.SequenceNode):
        return _Node([_plain(item) for item in node.value], line)
    value = yaml.SafeLoader(" ").construct_object(node)
    return _Node(value, line)


class _Problem(Exception):
    def __init__(self, line: int, where: str, reason: str) -> None:
        self.line, self.where, self.reason = line, where, reason
        super().__init__(reason)


class _Reader:
    """Collects every problem, each at its line."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[str] = []

    def problem(self, node: _Node, where: str, reason: str) -> None:
        self.problems.append(f"{self.source}:{node.line}: {where}: {reason}")

    def mapping(self, node: _Node, where: str, keys: Sequence[str]) -> dict[str, _Node]:
        if not isinstance(node.value, dict):
            self.problem(node, where, "must be a mapping")
            return {}
        for key, child in node.value.items():
            if key not in keys:
                self.problem(child, f"{where}.{key}", f"unknown key (known: {', '.join(keys)})")
        return {k: v for k, v in node.value.items() if k in keys}

    def items(self, node: _Node, where: str) -> list[_Node]:
        if isinstance(node.value, list):
            return list(node.value)
        self.problem(node, where, "must be a list")
        return []

    def text(self, node: _Node, where: str, pattern: re.Pattern[str] | None = None) -> str | None:
        if not isinstance(node.value, str) or not node.value:
            self.problem(node, where, "must be a non-empty string")
            return None
        if pattern is not None and not pattern.match(node.value):
            self.problem(node, where, f"{node.value!r} is not allowed here")
            return None
        return node.value

    def name(self, node: _Node, where: str) -> str | None:
        value = node.value if isinstance(node.value, str) else str(node.value)
        if not _NAME.match(value):
            self.problem(node, where, f"{value!r}: a name is 1-64 letters, digits, spaces or _.:/-")
            return None
        return value

    def duration(self, node: _Node, where: str) -> float | None:
        try:
            seconds = parse_duration(str(node.value))
        except ValueError as exc:
            self.problem(node, where, str(exc))
            return None
        if seconds <= 0:
            self.problem(node, where, "must be longer than 0s")
            return None
        return seconds

    def names(self, node: _Node, where: str) -> list[tuple[str, _Node]]:
        out = []
        for i, item in enumerate(self.items(node, where)):
            value = self.name(item, f"{where}[{i}]")
            if value is not None:
                out.append((value, item))
        return out


TOP_KEYS = (
    "timezone", "auditor_url", "smtp", "timing", "contacts", "shifts", "pits",
    "fallback", "escalation", "silence", "rules", "casework",
)  # fmt: skip


def load_rules(path: str | Path) -> AlertRules:
    """Read and check a rules file; :class:`RulesError` lists every problem."""
    source = str(path)
    try:
        text = safe_yaml.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesError([f"{source}: cannot be read: {exc}"]) from None
    except safe_yaml.YamlRefused as exc:
        raise RulesError([f"{source}: refused: {exc.reason}"]) from None
    return parse_rules(text, source)


def parse_rules(text: str, source: str = "<rules>") -> AlertRules:
    try:
        root_node = safe_yaml.compose(text)
    except safe_yaml.YamlRefused as exc:
        raise RulesError([f"{source}:{exc.line or 1}: refused: {exc.reason}"]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise RulesError([f"{source}:{line}: not YAML: {exc.problem or exc}"]) from None
    except yaml.YAMLError as exc:  # a character YAML refuses (NUL, ...)
        raise RulesError([f"{source}: not YAML: {' '.join(str(exc).split())}"]) from None
    if root_node is None:
        raise RulesError([f"{source}:1: the file is empty"])
    try:
        root = _plain(root_node)
    except _Problem as p:
        raise RulesError([f"{source}:{p.line}: {p.where}: {p.reason}"]) from None
    r = _Reader(source)
    top = r.mapping(root, "file", TOP_KEYS)
    rules = _build(r, top, root, source)
    if r.problems or rules is None:
        raise RulesError(sorted(r.problems, key=_line_of))
    return rules


def _line_of(problem: str) -> int:
    """The line of ``FILE:LINE: ...`` (problems are listed in the file's order)."""
    head = problem.split(": ", 1)[0]
    line = head.rsplit(":", 1)[-1]
    return int(line) if line.isdigit() else 0


def _build(r: _Reader, top: dict[str, _Node], root: _Node, source: str) -> AlertRules | None:
    for key in ("contacts", "shifts", "pits", "fallback", "rules"):
        if key not in top:
            r.problem(root, key, "is required")
    contacts = _contacts(r, top["contacts"]) if "contacts" in top else {}
    shifts = _shifts(r, top["shifts"]) if "shifts" in top else ()

    def chain(node: _Node, where: str) -> tuple[str, ...]:
        names = r.names(node, where)
        if not names:
            r.problem(node, where, "names no contact (at least one: escalation 0)")
        for i, (contact, item) in enumerate(names):
            if contact not in contacts:
                r.problem(item, f"{where}[{i}]", f"{contact!r} is not in contacts")
        return tuple(n for n, _ in names)

    shift_names = {s.name for s in shifts}
    pits: list[Pit] = []
    if "pits" in top:
        pits_node = top["pits"]
        pit_keys = list(pits_node.value) if isinstance(pits_node.value, dict) else []
        for name, pit_node in r.mapping(pits_node, "pits", pit_keys).items():
            where = f"pits.{name}"
            if r.name(_Node(name, pit_node.line), where) is None:
                continue
            if name == UNASSIGNED_PIT:
                r.problem(pit_node, where, f"{UNASSIGNED_PIT!r} is the pit of tables no pit names")
            fields = r.mapping(pit_node, where, ("tables", "on_call", "silence"))
            tables = tuple(
                t for i, node in enumerate(r.items(fields["tables"], f"{where}.tables"))
                if (t := r.text(node, f"{where}.tables[{i}]")) is not None
            ) if "tables" in fields else ()  # fmt: skip
            if not tables:
                r.problem(pit_node, f"{where}.tables", "is required: the pit's tables")
            on_call: dict[str, tuple[str, ...]] = {}
            if "on_call" not in fields:
                r.problem(pit_node, f"{where}.on_call", "is required: contacts per shift")
            else:
                node = fields["on_call"]
                known = sorted(shift_names)
                for shift, chain_node in r.mapping(node, f"{where}.on_call", known).items():
                    on_call[shift] = chain(chain_node, f"{where}.on_call.{shift}")
                for shift in known:
                    if isinstance(node.value, dict) and shift not in node.value:
                        r.problem(node, f"{where}.on_call", f"names no contacts for shift {shift}")
            silence = None
            if "silence" in fields:
                silence = r.duration(fields["silence"], f"{where}.silence")
            pits.append(Pit(name, tables, on_call, silence))
    fallback = chain(top["fallback"], "fallback") if "fallback" in top else ()
    rules = _rules(r, top["rules"], {p.name for p in pits}) if "rules" in top else ()
    escalation: list[float] = []
    if "escalation" in top:
        steps = r.items(top["escalation"], "escalation")
        for i, node in enumerate(steps):
            seconds = r.duration(node, f"escalation[{i}]")
            if seconds is None:
                continue
            if escalation and seconds <= escalation[-1]:
                r.problem(node, f"escalation[{i}]", "must be later than the step before it")
            escalation.append(seconds)
    silence_s: float | None = 600.0
    silence_tables: dict[str, float] = {}
    if "silence" in top:
        fields = r.mapping(top["silence"], "silence", ("default", "tables"))
        if "default" in fields:
            node = fields["default"]
            off = node.value in ("off", False)
            silence_s = None if off else r.duration(node, "silence.default")
        if "tables" in fields:
            node = fields["tables"]
            keys = list(node.value) if isinstance(node.value, dict) else []
            for table_id, value in r.mapping(node, "silence.tables", keys).items():
                seconds = r.duration(value, f"silence.tables.{table_id}")
                if seconds is not None:
                    silence_tables[table_id] = seconds
    zone: tzinfo = ZoneInfo("UTC")
    zone_name = r.text(top["timezone"], "timezone") if "timezone" in top else None
    if zone_name is not None:
        try:
            zone = ZoneInfo(zone_name)
        except (ZoneInfoNotFoundError, ValueError):
            r.problem(top["timezone"], "timezone", f"{zone_name!r} is not a known time zone")
    auditor = "http://127.0.0.1:8000"
    if "auditor_url" in top:
        auditor = (r.text(top["auditor_url"], "auditor_url", _URL) or auditor).rstrip("/")
    timing = _timing(r, top["timing"]) if "timing" in top else Timing()
    smtp = _smtp(r, top["smtp"]) if "smtp" in top else Smtp()
    dispositions = _dispositions(r, top["casework"]) if "casework" in top else None
    if r.problems:
        return None
    return AlertRules(
        contacts=contacts, shifts=shifts, pits=tuple(pits), fallback=fallback,
        rules=rules, escalation_s=tuple(escalation), silence_s=silence_s,
        silence_tables=silence_tables, timezone=zone, auditor_url=auditor,
        timing=timing, smtp=smtp, source=source,
        dispositions=dispositions or DEFAULT_DISPOSITIONS,
    )  # fmt: skip


def _dispositions(r: _Reader, node: _Node) -> tuple[str, ...] | None:
    """``casework: {dispositions: [...]}``: the list a case is closed with."""
    listed = r.mapping(node, "casework", ("dispositions",)).get("dispositions")
    if listed is None:
        if isinstance(node.value, dict):
            r.problem(node, "casework.dispositions", "is required")
        return None
    items = r.items(listed, "casework.dispositions")
    problem = dispositions_refusal([item.value for item in items])
    if problem is not None:
        r.problem(listed, "casework.dispositions", problem)
        return None
    return tuple(str(item.value) for item in items)


def _contacts(r: _Reader, node: _Node) -> dict[str, Contact]:
    keys = list(node.value) if isinstance(node.value, dict) else []
    out: dict[str, Contact] = {}
    for name, item in r.mapping(node, "contacts", keys).items():
        where = f"contacts.{name}"
        if r.name(_Node(name, item.line), where) is None:
            continue
        fields = r.mapping(item, where, ("email", "webhook", "slack"))
        email = r.text(fields["email"], f"{where}.email", _EMAIL) if "email" in fields else None
        hook = r.text(fields["webhook"], f"{where}.webhook", _URL) if "webhook" in fields else None
        slack = r.text(fields["slack"], f"{where}.slack", _URL) if "slack" in fields else None
        if not fields:
            r.problem(item, where, "has no way to reach it (email, webhook or slack)")
        out[name] = Contact(name, email, hook, slack)
    if not out and isinstance(node.value, dict):
        r.problem(node, "contacts", "names nobody")
    return out


def _shifts(r: _Reader, node: _Node) -> tuple[Shift, ...]:
    keys = list(node.value) if isinstance(node.value, dict) else []
    shifts: list[Shift] = []
    for name, item in r.mapping(node, "shifts", keys).items():
        where = f"shifts.{name}"
        if r.name(_Node(name, item.line), where) is None:
            continue
        fields = r.mapping(item, where, ("start", "end"))
        bounds: list[time] = []
        for key in ("start", "end"):
            if key not in fields:
                r.problem(item, f"{where}.{key}", "is required (HH:MM)")
                continue
            text = str(fields[key].value)
            match = _CLOCK.match(text)
            if match is None:
                r.problem(fields[key], f"{where}.{key}", f"{text!r} is not a time HH:MM")
                continue
            bounds.append(time(int(match[1]), int(match[2])))
        if len(bounds) == 2:
            if bounds[0] == bounds[1] and len(keys) > 1:
                r.problem(item, where, "starts where it ends")
            shifts.append(Shift(name, bounds[0], bounds[1]))
    if len(shifts) == len(keys) and shifts:
        for problem in _coverage(shifts):
            r.problem(node, "shifts", problem)
    elif not keys and isinstance(node.value, dict):
        r.problem(node, "shifts", "names no shift")
    return tuple(shifts)


def _coverage(shifts: Sequence[Shift]) -> Iterator[str]:
    """Every minute of the day in exactly one shift."""
    gaps, overlaps = [], []
    for minute in range(24 * 60):
        at = time(minute // 60, minute % 60)
        holding = [s.name for s in shifts if s.holds(at) or (s.start == s.end)]
        if not holding:
            gaps.append(at)
        elif len(holding) > 1:
            overlaps.append((at, holding))
    if gaps:
        yield f"no shift holds {gaps[0].strftime('%H:%M')} (every minute of the day needs one)"
    if overlaps:
        at, names = overlaps[0]
        yield f"{' and '.join(names)} both hold {at.strftime('%H:%M')}"


def _rules(r: _Reader, node: _Node, pit_names: set[str]) -> tuple[Rule, ...]:
    out: list[Rule] = []
    for i, item in enumerate(r.items(node, "rules")):
        where = f"rules[{i}]"
        fields = r.mapping(item, where, ("name", "checks", "min_severity", "pits", "tables",
                                        "games"))  # fmt: skip
        name = r.name(fields["name"], f"{where}.name") if "name" in fields else f"rule {i + 1}"
        checks: set[str] = set()
        if "checks" in fields:
            for j, check in enumerate(r.items(fields["checks"], f"{where}.checks")):
                if check.value not in CHECKS and check.value != SILENT_CHECK:
                    r.problem(check, f"{where}.checks[{j}]", f"{check.value!r} is no check code")
                else:
                    checks.add(check.value)
        severity = "low"
        if "min_severity" in fields:
            value = fields["min_severity"].value
            if value not in SEVERITIES:
                r.problem(fields["min_severity"], f"{where}.min_severity",
                          f"{value!r} is not one of {', '.join(SEVERITIES)}")  # fmt: skip
            else:
                severity = value
        pits: set[str] = set()
        if "pits" in fields:
            for j, (pit, pit_node) in enumerate(r.names(fields["pits"], f"{where}.pits")):
                if pit not in pit_names and pit != UNASSIGNED_PIT:
                    r.problem(pit_node, f"{where}.pits[{j}]", f"{pit!r} is not in pits")
                pits.add(pit)
        tables: list[str] = []
        if "tables" in fields:
            for j, t in enumerate(r.items(fields["tables"], f"{where}.tables")):
                if (text := r.text(t, f"{where}.tables[{j}]")) is not None:
                    tables.append(text)
        games: set[str] = set()
        if "games" in fields:
            for j, g in enumerate(r.items(fields["games"], f"{where}.games")):
                if g.value not in names():  # the registered games
                    r.problem(g, f"{where}.games[{j}]",
                              f"{g.value!r} is not one of {', '.join(names())}")  # fmt: skip
                else:
                    games.add(g.value)
        out.append(Rule(name or f"rule {i + 1}", frozenset(checks), severity, frozenset(pits),
                        tuple(tables), frozenset(games)))  # fmt: skip
    if not out and isinstance(node.value, list):
        r.problem(node, "rules", "no rule: no finding would ever alert anyone")
    return tuple(out)


def _timing(r: _Reader, node: _Node) -> Timing:
    keys = ("group_wait", "group_interval", "repeat_interval", "resend", "expire")
    values: dict[str, float] = {}
    for key, child in r.mapping(node, "timing", keys).items():
        seconds = r.duration(child, f"timing.{key}")
        if seconds is not None:
            values[f"{key}_s"] = seconds
    return Timing(**values)


def _smtp(r: _Reader, node: _Node) -> Smtp:
    fields = r.mapping(node, "smtp", ("smarthost", "from", "require_tls"))
    smtp = Smtp()
    host = smtp.smarthost
    if "smarthost" in fields:
        text = r.text(fields["smarthost"], "smtp.smarthost", re.compile(r"^[^\s:]+:\d{1,5}$"))
        host = text or host
    sender = smtp.sender
    if "from" in fields:
        sender = r.text(fields["from"], "smtp.from", _EMAIL) or sender
    tls = smtp.require_tls
    if "require_tls" in fields:
        if not isinstance(fields["require_tls"].value, bool):
            r.problem(fields["require_tls"], "smtp.require_tls", "must be true or false")
        else:
            tls = fields["require_tls"].value
    return Smtp(host, sender, tls)
