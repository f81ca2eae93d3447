"""Callers' SQL, read-only and bounded: what every read path runs (the worker's ``/query``,
``tablewatch db query``, the auditor API).

Enforced by the engine, in four layers, each enough to stop a class of attack
on its own:

1. a first, friendly refusal of what is plainly not one read-only statement
   (:func:`~tablewatch.store.sql_text.read_only_refusal`);
2. the engine parses the text (``formatQuerySingleLine``): exactly one
   statement, whatever string forms it uses (``$$...$$`` heredocs and the
   like), and it is the engine's own re-serialisation of that statement that
   runs, never the caller's text;
3. the engine's syntax tree of that statement (``EXPLAIN AST``, a parse that
   evaluates nothing) is held against an allow-list: only SELECT, DESCRIBE and
   SHOW TABLES; only the product's tables and views (:data:`READABLE`); no table
   functions; no functions that read outside the store (``file``,
   dictionaries, Join tables); no ``INTO OUTFILE`` and no ``FORMAT``;
4. the statement runs with ``readonly=1`` (no writes, no DDL, no setting
   changes, no table functions that reach a source) and with limits on time,
   result rows and bytes, and memory (:class:`QueryLimits`). On the embedded
   engine these are set on the reader's own connection before ``readonly``, so
   no query can lift them; on a server they go with every query, and the
   reader's user should carry the same profile (``docs/store.md``).

A statement that passed the checks is remembered with the engine's text of it (the last
:data:`CHECKED_KEPT`, per reader and the tables its caller's role adds): a dashboard's
panel, sent again at every refresh, runs without the two statements the checks cost. The
verdict rests on the text alone, except where a CTE's name was looked up among the
database's tables: those are checked again each time.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from clickhouse_connect.driver.client import Client
from clickhouse_connect.driver.exceptions import ClickHouseError

from tablewatch.store.client import connect
from tablewatch.store.dsn import ServerDsn, parse_dsn
from tablewatch.store.query_limits import QueryLimits
from tablewatch.store.sql_text import code_only, read_only_refusal

# The product's tables and views (the store's migrations create them); nothing else,
# neither ``system`` nor ``information_schema``.
READABLE = frozenset(
    {
        "raw_events",
        "rounds",
        "settlements",
        "findings",
        "raw_events_v",
        "rounds_v",
        "settlements_v",
        "findings_v",
        "schema_migrations",
        "chain_checkpoints",
        "signing_keys",
        "replay_runs",
        "replay_findings",
        "replay_rounds",
        "replay_runs_v",
        "replay_findings_v",
        "replay_rounds_v",
        "table_directory",
        "tables_v",
        "findings_by_minute",
        "rounds_by_hour",
        "table_activity",
        "hold_by_round",
        "procedure_events",
        "round_judgements",
        "round_index",
        "rollup_watermarks",
        "pattern_checkpoints",
        "theoretical",
        "theoretical_v",
        "table_paytables",
        "table_paytables_v",
        "hold_lines",
        "hold_lines_v",
        "alert_events",
        "alert_events_v",
        "case_events",
        "cases_v",
    }
)
# Functions that read outside the product's tables: files, dictionaries, Join tables,
# the server's configuration.
DENIED_FUNCTIONS = frozenset({"file", "joinget", "joingetornull", "getserversetting"})
DENIED_PREFIXES = ("dict",)
# ``x IN name`` reads the table ``name``
_IN_FUNCTIONS = frozenset(
    {"in", "notin", "globalin", "globalnotin", "nullin", "notnullin", "globalnullin"}
    | {"globalnotnullin"}
)
_ROOTS = {"SelectWithUnionQuery": "SELECT", "DescribeQuery": "DESCRIBE", "ShowTables": "SHOW"}
_ALIAS = re.compile(r" \(alias [^()]*\)$")
_CHILDREN = re.compile(r" \(children \d+\)$")
_CTE = re.compile(r"(?:\bWITH|,)\s+(`[^`]+`|[A-Za-z_][A-Za-z_0-9]*)\s+AS\s+\(", re.IGNORECASE)
_FORMAT = re.compile(r"\bFORMAT\s+\w+\s*$", re.IGNORECASE)
_OUTFILE = re.compile(r"\bINTO\s+OUTFILE\b", re.IGNORECASE)
# SHOW DATABASES, CLUSTERS, DICTIONARIES, MERGES, ... parse as ShowTables too, and read the
# engine's system tables: of the SHOW statements only SHOW [FULL] TABLES is a reader's.
_SHOW = re.compile(r"\s*SHOW\b", re.IGNORECASE)
_SHOW_TABLES = re.compile(r"\s*SHOW\s+(?:FULL\s+)?TABLES\b", re.IGNORECASE)
# The engine's guess at a table it does not know ("Maybe you meant canary.secrets?") names
# tables of any database: left out of what the caller is told.
_TABLE_HINT = re.compile(r" ?Maybe you meant [^\s?]+\?")
MAX_SQL_LENGTH = 100_000
CHECKED_KEPT = 256  # statements remembered with their checked text, per reader


class QueryRefused(Exception):
    """The statement is not one a reader may run; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class QueryFailed(Exception):
    """The engine stopped the statement: ``kind`` is ``timeout``, ``too_large``,
    ``memory``, ``refused`` (the engine's read-only mode) or ``error``."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Answer:
    columns: list[str]
    rows: Sequence[Sequence[Any]]


class ReadOnlyReader:
    """A client of its own, for callers' statements only (see the module's docstring)."""

    def __init__(self, client: Client, limits: QueryLimits, *, embedded: bool) -> None:
        self.client = client
        self.limits = limits
        self.embedded = embedded
        settings = limits.settings(embedded=embedded)
        if embedded:
            # chDB keeps SET on this client's own connection: limits first, then readonly
            for name, value in settings.items():
                client.command(f"SET {name} = {_setting_literal(value)}")
            self._settings: dict[str, Any] | None = None
        else:
            self._settings = settings
        self.database = str(self._query("SELECT currentDatabase()").result_rows[0][0])
        # (caller's text, tables the role adds) -> the engine's text, checked
        self._checked: OrderedDict[tuple[str, frozenset[str]], str] = OrderedDict()
        self._looked_up = False  # whether the check in progress looked a name up

    def run(self, sql: str, *, also: frozenset[str] = frozenset()) -> Answer:
        """Run one caller's statement, which may read the tables ``also`` beyond
        :data:`READABLE` (a role's own); raises :class:`QueryRefused` or :class:`QueryFailed`."""
        statement = self.checked(sql, also=also)
        try:
            if statement.startswith(("DESCRIBE", "SHOW")):  # small, and never streamed
                result = self._query(statement)
                return Answer(list(result.column_names), result.result_rows)
            return self._collect(statement)
        except ClickHouseError as exc:
            raise self._failure(exc) from exc

    def _collect(self, statement: str) -> Answer:
        """The rows, block by block, counting their size here too: the engine counts a
        constant column once, while it reaches the caller once a row.

        A stream that ends once the time limit has passed is refused as timed out, never
        answered: the embedded engine may end a stream it cancelled for the time limit as if
        the result were complete (no error, fewer rows), so an answer given then could be
        an incomplete one. The engine's clock starts after this one, so every stream it
        cancelled for time ends past the limit here."""
        rows: list[Sequence[Any]] = []
        size = 0
        limits = self.limits
        started = time.monotonic()
        with self.client.query_row_block_stream(statement, settings=self._settings) as stream:
            columns = list(stream.source.column_names)
            for block in stream:
                rows.extend(block)
                size += sum(_size(value) for row in block for value in row)
                if size > limits.bytes or len(rows) > limits.rows:
                    raise QueryFailed("too_large", self._too_large())
        if not columns:  # no block came (no rows): the statement's columns, not run again
            described = self._query(f"DESCRIBE ({statement})").result_rows
            columns = [str(row[0]) for row in described]
        if time.monotonic() - started >= limits.seconds:
            raise QueryFailed(
                "timeout",
                f"cancelled after {limits.seconds:g} s (the time limit): "
                f"{len(rows):,} rows had come, the rest may not have",
            )
        return Answer(columns, rows)

    def checked(self, sql: str, *, also: frozenset[str] = frozenset()) -> str:
        """The engine's text of ``sql`` once it passed every check: what :meth:`run` runs
        (remembered: see the module's docstring)."""
        key = (sql, also)
        canonical = self._checked.get(key)
        if canonical is not None:
            self._checked.move_to_end(key)
            return canonical
        self._looked_up = False
        canonical = self._check(sql, also)
        if not self._looked_up:
            self._checked[key] = canonical
            if len(self._checked) > CHECKED_KEPT:
                self._checked.popitem(last=False)
        return canonical

    def _check(self, sql: str, also: frozenset[str]) -> str:
        if len(sql) > MAX_SQL_LENGTH:
            raise QueryRefused(f"the statement is longer than {MAX_SQL_LENGTH:,} characters")
        if "\x00" in sql:
            raise QueryRefused("the statement holds a NUL character")
        refusal = read_only_refusal(sql)
        if refusal:
            raise QueryRefused(refusal)
        try:
            canonical = str(
                self._query(f"SELECT formatQuerySingleLine({_string_literal(sql)})").result_rows[0][
                    0
                ]
            )
        except ClickHouseError as exc:
            self._raise_if_timed_out(exc)
            raise QueryRefused(
                f"not one statement the engine can parse: {_first_line(exc)}"
            ) from exc
        code = code_only(canonical)
        if _OUTFILE.search(code):
            raise QueryRefused("INTO OUTFILE writes a file")
        if _FORMAT.search(code):
            raise QueryRefused("FORMAT is the reader's to choose")
        if _SHOW.match(code) and not _SHOW_TABLES.match(code):
            shown = " ".join(code.split()[:2])
            raise QueryRefused(f"of the SHOW statements only SHOW TABLES; not {shown}")
        try:
            tree = [row[0] for row in self._query(f"EXPLAIN AST {canonical}").result_rows]
        except ClickHouseError as exc:
            self._raise_if_timed_out(exc)
            raise QueryRefused(f"the engine cannot parse it: {_first_line(exc)}") from exc
        refusal = self._tree_refusal(tree, _cte_names(canonical), also)
        if refusal:
            raise QueryRefused(refusal)
        return canonical

    def _tree_refusal(
        self, lines: list[str], ctes: frozenset[str], also: frozenset[str] = frozenset()
    ) -> str | None:
        nodes = [_node(line) for line in lines if line.strip()]
        if not nodes:
            return "the engine returned no syntax tree"
        root = nodes[0][1]
        if root not in _ROOTS:
            return f"only SELECT, WITH, DESCRIBE and SHOW TABLES; not {root}"
        root_children = [n for n in nodes if n[0] == 1]
        if root == "SelectWithUnionQuery":
            literals = [n for n in root_children if n[1] == "Literal"]
            if literals:
                return "INTO OUTFILE writes a file"
        if root == "ShowTables" and len(root_children) > 1:
            return "SHOW TABLES of the product's database only"
        for i, (_, kind, name) in enumerate(nodes):
            parent = _parent(nodes, i)
            if kind == "TableIdentifier":
                refusal = self._table_refusal(name, ctes, also)
            elif kind == "Function" and parent == "TableExpression":
                refusal = f"table function {name}() is not allowed: read the product's tables"
            elif kind == "Function":
                refusal = _function_refusal(name)
                if refusal is None and name.lower() in _IN_FUNCTIONS:
                    refusal = self._in_refusal(nodes, i, ctes, also)
            else:
                refusal = None
            if refusal:
                return refusal
        return None

    def _in_refusal(
        self,
        nodes: list[tuple[int, str, str]],
        at: int,
        ctes: frozenset[str],
        also: frozenset[str] = frozenset(),
    ) -> str | None:
        """``x IN name`` reads the table ``name``: the second argument, when an identifier."""
        depth = nodes[at][0]
        arguments = [n for n in _subtree(nodes, at) if n[0] == depth + 2]
        if len(arguments) == 2 and arguments[1][1] == "Identifier":
            return self._table_refusal(arguments[1][2], ctes, also)
        return None

    def _table_refusal(
        self, name: str, ctes: frozenset[str], also: frozenset[str] = frozenset()
    ) -> str | None:
        database, dot, table = name.rpartition(".")
        refusal = f"{name} is not readable: only the product's tables and views ({_readable(also)})"
        if dot and database != self.database:
            return refusal
        if table in READABLE or table in also:
            return None
        if not dot and table in ctes and not self._is_table(table):
            return None  # a CTE's name, where the database has no table of that name
        return refusal

    def _is_table(self, name: str) -> bool:
        """Whether the product's database holds a table, view or dictionary ``name``. A
        name a CTE of the statement also has (or a window: ``_cte_names`` reads the text)
        still reads that table wherever no such CTE is in scope."""
        self._looked_up = True
        query = "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = "
        return bool(self._query(query + _string_literal(name)).result_rows[0][0])

    def _query(self, sql: str) -> Any:
        return self.client.query(sql, settings=self._settings)

    def _too_large(self) -> str:
        limits = self.limits
        return (
            f"the result is over {limits.rows:,} rows or {limits.bytes:,} bytes: "
            "narrow it or add a LIMIT"
        )

    def _raise_if_timed_out(self, exc: ClickHouseError) -> None:
        """A check that ran out of the time limit (a loaded machine, a short limit) is a
        timeout, not a statement the engine cannot parse."""
        if "(TIMEOUT_EXCEEDED)" in str(exc):
            raise self._failure(exc) from exc

    def _failure(self, exc: ClickHouseError) -> QueryFailed:
        """What the engine's refusal means for the caller, with its own words after."""
        text, message = str(exc), _first_line(exc)
        if "(TIMEOUT_EXCEEDED)" in text:
            return QueryFailed(
                "timeout", f"cancelled after {self.limits.seconds:g} s (the time limit): {message}"
            )
        if "(TOO_MANY_ROWS_OR_BYTES)" in text:
            return QueryFailed("too_large", f"{self._too_large()} ({message})")
        if "(MEMORY_LIMIT_EXCEEDED)" in text:
            return QueryFailed(
                "memory", f"over the memory limit of {self.limits.memory:,} bytes: {message}"
            )
        if "(READONLY)" in text or "(ACCESS_DENIED)" in text:
            return QueryFailed("refused", f"refused by the engine's read-only mode: {message}")
        return QueryFailed("error", message)

    def close(self) -> None:
        self.client.close()


def open_reader(dsn: str | None = None, limits: QueryLimits | None = None) -> ReadOnlyReader:
    """A :class:`ReadOnlyReader` on the store at ``dsn`` (a client of its own)."""
    from tablewatch.store.dsn import default_dsn

    dsn = dsn or default_dsn()
    embedded = not isinstance(parse_dsn(dsn), ServerDsn)
    client = connect(dsn)
    try:
        return ReadOnlyReader(client, limits or QueryLimits(), embedded=embedded)
    except BaseException:
        client.close()
        raise


def _node(line: str) -> tuple[int, str, str]:
    """``(depth, kind, name)`` of one line of ``EXPLAIN AST``."""
    depth = len(line) - len(line.lstrip(" "))
    text = _CHILDREN.sub("", line.strip())
    text = _ALIAS.sub("", text)
    kind, _, name = text.partition(" ")
    return depth, kind, name


def _parent(nodes: list[tuple[int, str, str]], at: int) -> str | None:
    depth = nodes[at][0]
    for j in range(at - 1, -1, -1):
        if nodes[j][0] < depth:
            return nodes[j][1]
    return None


def _subtree(nodes: list[tuple[int, str, str]], at: int) -> list[tuple[int, str, str]]:
    depth = nodes[at][0]
    out = []
    for node in nodes[at + 1 :]:
        if node[0] <= depth:
            break
        out.append(node)
    return out


def _size(value: Any) -> int:
    if isinstance(value, str | bytes):
        return len(value) + 8
    if isinstance(value, list | tuple | dict):
        return sum(_size(v) for v in value) + 8
    return 8


def _function_refusal(name: str) -> str | None:
    lowered = name.lower()
    if lowered in DENIED_FUNCTIONS or lowered.startswith(DENIED_PREFIXES):
        return f"function {name}() reads outside the product's tables"
    return None


def _cte_names(canonical: str) -> frozenset[str]:
    return frozenset(m.group(1).strip("`") for m in _CTE.finditer(code_only(canonical)))


def _readable(also: frozenset[str] = frozenset()) -> str:
    return ", ".join(sorted(READABLE | also))


def _string_literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _setting_literal(value: Any) -> str:
    return _string_literal(value) if isinstance(value, str) else str(value)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return _TABLE_HINT.sub("", text.splitlines()[0]) if text else type(exc).__name__
