"""Fuzzing :meth:`ReadOnlyReader.run` on an embedded store (chDB) with canaries planted.

The store holds a simulated floor's rows; beside the product's tables the writer planted
secrets the reader must never return: a database ``canary`` (a table, a view over it, a
dictionary, a Join table), a table and a dictionary in the product's own database that
are not the product's, a row of ``access_log`` (the product's, but only for the roles
that add it, which this reader's caller has not), and a file. Statements are built from
fragments (valid SELECTs of the product's tables, table functions, system tables, string
forms such as ``$$...$$`` and ``$tag$...$tag$``, comments, several statements,
``INTO OUTFILE``, ``SETTINGS``, ``FORMAT``, writes, ``SHOW``), or composed so that one
name is a CTE or a window in one scope and read in another (:func:`scoped`), mixed as
token soup, or arbitrary text.

What must hold for every statement:

- it is answered, or refused (:class:`QueryRefused`) or stopped (:class:`QueryFailed`),
  each with a reason; nothing else is raised;
- no answer holds a secret, nor (unless the statement names it) the canary database's
  name;
- no file appears in the directory the statements write to, nor in the working directory;
  no TCP connection reaches the listener the statements point at;
- the store keeps its databases, its tables and their row counts; the reader still answers.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tablewatch.sim.floor import Floor
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.query_limits import QueryLimits
from tablewatch.store.read_only import QueryFailed, QueryRefused, open_reader
from tablewatch.store.writer import StoreWriter
from tests.fuzz.tally import Tally
from tests.store.helpers import audit_floor
from tests.store.loopback import Listener

LIMITS = QueryLimits(seconds=2.0, rows=2_000, bytes=2_000_000, memory=300_000_000)
CANARY = "canary"
RELATIVE_OUT = "tw-fuzz-written.txt"  # a relative INTO OUTFILE lands in the working directory
FAILURE_KINDS = frozenset({"timeout", "too_large", "memory", "refused", "error"})


@dataclass(frozen=True)
class Paths:
    secret_file: Path
    files: Path  # where the secret file is and where statements try to write
    out: Path
    port: int


class SqlHarness:
    """A store with its canaries, a writer client (the test's) and the reader under test."""

    def __init__(self, limits: QueryLimits = LIMITS) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="tw-fuzz-sql-"))
        self.files = self.root / "files"
        self.files.mkdir()
        token = uuid.uuid4().hex[:12]
        kinds = ("ROW", "LOCAL", "DICT", "FILE", "ACCESS")
        self.secrets = tuple(f"TWFUZZ-{what}-{token}" for what in kinds)
        secret_file = self.files / "secret.txt"
        secret_file.write_text(f"{self.secrets[3]}\n")
        (self.files / "secret.csv").write_text(f"1,{self.secrets[3]}\n")
        self.listener = Listener()
        self.paths = Paths(secret_file, self.files, self.files / "out.txt", self.listener.port)
        dsn = f"chdb:///{self.root / 'store'}"
        self.writer = connect(dsn)
        try:
            self._fill()
            self.reader = open_reader(dsn, limits)
        except BaseException:
            self.writer.close()
            raise
        self.files_before = self._files()
        self.store_before = self.store_state()
        self.queries = 0

    def _fill(self) -> None:
        writer = self.writer
        migrate(writer)
        floor = Floor(tables=2, rounds=16, seed=5, error_rate=0.2, jackpot_rate=0.2)
        StoreWriter(writer).insert_batch(audit_floor(floor).batch())
        row, local, entry, _, access = self.secrets
        for statement in (
            f"CREATE DATABASE {CANARY}",
            f"CREATE TABLE {CANARY}.secrets (s String) ENGINE = MergeTree ORDER BY s",
            f"INSERT INTO {CANARY}.secrets VALUES ('{row}')",
            f"CREATE VIEW {CANARY}.v AS SELECT s FROM {CANARY}.secrets",
            f"CREATE TABLE {CANARY}.kv (k UInt64, s String) ENGINE = MergeTree ORDER BY k",
            f"INSERT INTO {CANARY}.kv VALUES (1, '{entry}')",
            f"CREATE DICTIONARY {CANARY}.dict (k UInt64, s String) PRIMARY KEY k "
            f"SOURCE(CLICKHOUSE(TABLE 'kv' DB '{CANARY}')) LAYOUT(FLAT()) LIFETIME(0)",
            f"CREATE TABLE {CANARY}.j (k UInt64, s String) ENGINE = Join(ANY, LEFT, k)",
            f"INSERT INTO {CANARY}.j VALUES (1, '{row}')",
            # in the product's database, but not the product's
            "CREATE TABLE stowaway (s String) ENGINE = MergeTree ORDER BY s",
            f"INSERT INTO stowaway VALUES ('{local}')",
            "CREATE DICTIONARY stowaway_dict (k UInt64, s String) PRIMARY KEY k "
            f"SOURCE(CLICKHOUSE(TABLE 'kv' DB '{CANARY}')) LAYOUT(FLAT()) LIFETIME(0)",
        ):
            writer.command(statement)
        tables = {row[0] for row in writer.query("SHOW TABLES").result_rows}
        if "access_log" in tables:  # the product's, for the roles that may read it only
            writer.command(
                "INSERT INTO access_log (ts, request_id, request) "
                f"VALUES (now64(3), 'fuzz', '{access}')"
            )

    def _files(self) -> list[str]:
        return sorted(str(p.relative_to(self.root)) for p in self.files.rglob("*"))

    def store_state(self) -> list[tuple[Any, ...]]:
        """Databases, tables and the rows of each table (through the writer's client)."""
        tables = self.writer.query(
            "SELECT database, name, engine FROM system.tables WHERE database NOT IN "
            "('system', 'INFORMATION_SCHEMA', 'information_schema') ORDER BY database, name"
        ).result_rows
        state: list[tuple[Any, ...]] = [
            tuple(row[0] for row in self.writer.query("SHOW DATABASES").result_rows)
        ]
        for database, name, engine in tables:
            rows = None
            if "MergeTree" in engine or engine in ("Join", "View"):
                query = f"SELECT count() FROM `{database}`.`{name}`"
                rows = self.writer.query(query).result_rows[0][0]
            state.append((database, name, engine, rows))
        return state

    def check_untouched(self, full: bool) -> None:
        assert self._files() == self.files_before, "a statement wrote a file"
        assert not Path(RELATIVE_OUT).exists(), "a statement wrote a file in the working directory"
        assert self.listener.connections == 0, "a statement connected out"
        if full:
            assert self.store_state() == self.store_before, "the store changed"
            assert list(self.reader.run("SELECT 1").rows) == [(1,)], "the reader stopped answering"

    def close(self) -> None:
        try:
            self.reader.close()
        finally:
            self.writer.close()
            self.listener.close()
            Path(RELATIVE_OUT).unlink(missing_ok=True)
            shutil.rmtree(self.root, ignore_errors=True)


def _flat(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list | tuple | set | frozenset):
        return "\x1f".join(_flat(v) for v in value)
    if isinstance(value, dict):
        return "\x1f".join(f"{_flat(k)}\x1f{_flat(v)}" for k, v in value.items())
    return str(value)


def _nothing_outside(text: str, sql: str, harness: SqlHarness) -> None:
    """What the caller is told (an answer, or the reason of a refusal) holds no secret, nor
    the name of the other database unless the statement named it."""
    for secret in harness.secrets:
        assert secret not in text, f"a secret was returned: {text[:300]!r}"
    if CANARY not in sql.lower():
        assert CANARY not in text.lower(), f"another database was named: {text[:300]!r}"


def check_query(sql: str, harness: SqlHarness, tally: Tally) -> None:
    tally.count()
    harness.queries += 1
    try:
        answer = harness.reader.run(sql)
    except QueryRefused as refused:
        assert isinstance(refused.reason, str) and refused.reason.strip(), "no reason"
        _nothing_outside(refused.reason, sql, harness)
        tally.saw("refused", refused.reason)
    except QueryFailed as failed:
        assert isinstance(failed.reason, str) and failed.reason.strip(), "no reason"
        assert failed.kind in FAILURE_KINDS, failed.kind
        _nothing_outside(failed.reason, sql, harness)
        tally.saw(f"stopped ({failed.kind})", failed.reason)
    else:
        _nothing_outside(_flat(answer.columns) + "\x1f" + _flat(list(answer.rows)), sql, harness)
        tally.saw("answered")
    harness.check_untouched(full=harness.queries % 40 == 0)


# ---- statements -----------------------------------------------------------------------

READABLE_SOURCES = [
    "findings_v",
    "rounds_v",
    "settlements_v",
    "raw_events_v",
    "findings",
    "rounds FINAL",
    "settlements AS s",
    "raw_events",
    "schema_migrations",
    "default.rounds_v",
    "`findings_v`",
    '"rounds_v"',
]
OUTSIDE_SOURCES = [
    "canary.secrets",
    "canary.v",
    "canary.j",
    "canary.dict",
    "`canary`.`secrets`",
    "canary . secrets",
    '"canary"."v"',
    "stowaway",
    "default.stowaway",
    "`stowaway`",
    "stowaway_dict",
    "access_log",
    "access_log_v",
    "secrets",
    "system.tables",
    "system.databases",
    "system.one",
    "system.settings",
    "system.processes",
    "system.dictionaries",
    "system.numbers LIMIT 3",
    "system.query_log",
    "information_schema.tables",
    "INFORMATION_SCHEMA.COLUMNS",
]
TABLE_FUNCTIONS = [
    "file('{secret}', 'LineAsString')",
    "file('{secret}')",
    "file('{files}/*', 'LineAsString')",
    "file('{files}/secret.csv', 'CSV', 'k UInt8, s String')",
    "file('secret.txt', 'LineAsString')",
    "url('http://127.0.0.1:{port}/x', 'LineAsString')",
    "URL('http://127.0.0.1:{port}/x', CSV, 's String')",
    "s3('http://127.0.0.1:{port}/b/k.csv', 'CSV')",
    "remote('127.0.0.1:{port}', canary.secrets)",
    "remote('127.0.0.1', canary, secrets)",
    "cluster('default', canary.secrets)",
    "clusterAllReplicas('default', canary, secrets)",
    "merge('canary', '.*')",
    "merge(currentDatabase(), 'stow')",
    "merge(REGEXP('can.*'), '.*')",
    "loop(canary.secrets)",
    "view(SELECT * FROM canary.secrets)",
    "dictionary('canary.dict')",
    "mergeTreeIndex('canary', 'secrets')",
    "numbers(3)",
    "zeros(2)",
    "values('s String', 'x')",
    "generateRandom('s String', 1)",
    "input('s String')",
    "format(CSV, 's String', 'x')",
    "sqlite('{files}/db.sqlite', 't')",
    "executable('cat {secret}', 'TSV', 's String')",
    "python(x)",
    "null('s String')",
    "mysql('127.0.0.1:{port}', 'db', 't', 'u', 'p')",
    "postgresql('127.0.0.1:{port}', 'db', 't', 'u', 'p')",
    "hdfs('hdfs://127.0.0.1:{port}/x', 'CSV')",
    "jdbc('jdbc:mysql://127.0.0.1:{port}/db', 't')",
]
EXPRESSIONS = [
    "1",
    "*",
    "count()",
    "s",
    "table_id",
    "check",
    "seq",
    "'x'",
    "'a;b'",
    "$$x$$",
    "$$;$$",
    "$tag$ ' ; $tag$",
    "$a$ $$ $a$",
    "'\\''",
    "'it''s'",
    "'/*'",
    "'--'",
    "`x;y`",
    '"col"',
    "file('{secret}')",
    "length(file('{secret}'))",
    "FiLe('{secret}')",
    "dictGet('canary.dict', 's', toUInt64(1))",
    "dictGetString('stowaway_dict', 's', toUInt64(1))",
    "dictGetOrDefault('canary.dict', 's', toUInt64(1), '')",
    "joinGet('canary.j', 's', toUInt64(1))",
    "joinGetOrNull('canary.j', 's', toUInt64(1))",
    "getServerSetting('path')",
    "getSetting('readonly')",
    "hasColumnInTable('canary', 'secrets', 's')",
    "(SELECT any(s) FROM canary.secrets)",
    "(SELECT any(s) FROM stowaway)",
    "(SELECT groupArray(name) FROM system.databases)",
    "'x' IN canary.secrets",
    "'x' IN stowaway",
    "'x' IN (stowaway)",
    "'x' GLOBAL IN canary.secrets",
    "'x' NOT IN stowaway",
    "'x' IN (SELECT s FROM canary.secrets)",
    "exists(SELECT 1 FROM canary.secrets)",
    "arrayJoin([1, 2])",
    "currentDatabase()",
    "version()",
    "currentUser()",
    "tuple(1, 'a')",
    "[1, 2]",
    "map('a', 1)",
    "toString(now())",
    "randomString(4)",
    "sleep(0.001)",
    "x",
    "stowaway.s",
]
CTES = [
    "WITH stowaway AS (SELECT 1 AS s)",
    "WITH secrets AS (SELECT 'x' AS s)",
    "WITH c AS (SELECT * FROM canary.secrets)",
    "WITH c AS (SELECT count() AS n FROM findings_v)",
    "WITH findings_v AS (SELECT 1 AS n)",
    "WITH (SELECT any(s) FROM canary.secrets) AS x",
    "WITH (SELECT count() FROM rounds_v) AS x",
    "WITH 1 AS x",
    "WITH file('{secret}') AS x",
    "WITH c AS (SELECT 1), stowaway AS (SELECT 2 AS s)",
]
# Names a statement may give a CTE or a window (the product's, the canaries'), and read.
SHADOWS = ["stowaway", "stowaway_dict", "access_log", "access_log_v", "secrets", "findings_v"]
SHADOWS += ["rounds_v", "c", "w"]
NAMES = [*SHADOWS, "canary.secrets", "default.stowaway"]
CTE_BODIES = ["SELECT 1 AS s", "SELECT 'x' AS s", "SELECT s FROM canary.secrets"]
CTE_BODIES += [
    "SELECT count() AS s FROM findings_v",
    "SELECT * FROM stowaway",
    "SELECT table_id AS s FROM rounds_v",
]
SUFFIXES = [
    "",
    "",
    "",
    " LIMIT 3",
    " WHERE 1",
    " WHERE 0",
    " ORDER BY 1",
    " INTO OUTFILE '{out}'",
    " INTO OUTFILE '{out}' TRUNCATE",
    f" INTO OUTFILE '{RELATIVE_OUT}'",
    " INTO OUTFILE '{out}' FORMAT CSV",
    " FORMAT CSV",
    " FORMAT JSONEachRow",
    " SETTINGS readonly = 0",
    " SETTINGS max_result_rows = 0",
    " SETTINGS allow_python_table_function = 1",
    " SETTINGS max_execution_time = 1000",
    "; DROP TABLE findings",
    "; DROP DATABASE canary",
    "; SELECT * FROM canary.secrets",
    "; INSERT INTO findings SELECT * FROM findings",
    ";",
    " -- ;",
    " /* ; */",
    " # x",
    " UNION ALL SELECT s FROM canary.secrets",
    " UNION ALL SELECT s FROM stowaway",
    " UNION ALL SELECT * FROM (WITH stowaway AS (SELECT 1 AS s) SELECT * FROM stowaway)",
]
STATEMENTS = [
    "SELECT 1",
    "SELECT count() FROM findings_v",
    "SHOW TABLES",
    "SHOW FULL TABLES",
    "SHOW TABLES LIKE 'stow%'",
    "SHOW TABLES FROM default",
    "SHOW TABLES FROM canary",
    "SHOW TABLES IN system",
    "SHOW TEMPORARY TABLES",
    "SHOW DATABASES",
    "SHOW DATABASES LIKE 'c%'",
    "SHOW DICTIONARIES",
    "SHOW DICTIONARIES FROM canary",
    "SHOW CLUSTERS",
    "SHOW MERGES",
    "SHOW FILESYSTEM CACHES",
    "SHOW PROCESSLIST",
    "SHOW SETTINGS LIKE '%'",
    "SHOW GRANTS",
    "SHOW USERS",
    "SHOW ENGINES",
    "SHOW FUNCTIONS",
    "SHOW CREATE TABLE canary.secrets",
    "SHOW COLUMNS FROM canary.secrets",
    "SHOW INDEXES FROM stowaway",
    "DESCRIBE TABLE findings_v",
    "DESCRIBE canary.secrets",
    "DESC stowaway",
    "DESCRIBE (SELECT * FROM canary.secrets)",
    "DESCRIBE file('{secret}', 'LineAsString')",
    "EXISTS canary.secrets",
    "CHECK TABLE canary.secrets",
    "EXPLAIN SELECT * FROM canary.secrets",
    "EXPLAIN AST SELECT * FROM canary.secrets",
    "EXPLAIN SYNTAX SELECT (SELECT any(s) FROM canary.secrets)",
    "EXPLAIN SELECT 1 INTO OUTFILE '{out}'",
    "USE canary",
    "INSERT INTO findings SELECT * FROM findings",
    "INSERT INTO FUNCTION file('{out}', 'CSV') SELECT 1",
    "DROP TABLE stowaway",
    "DROP DATABASE canary",
    "TRUNCATE TABLE canary.secrets",
    "ALTER TABLE rounds DELETE WHERE 1",
    "DELETE FROM rounds WHERE 1",
    "UPDATE rounds SET seq = 0 WHERE 1",
    "CREATE TABLE evil (a Int8) ENGINE = Memory",
    "CREATE TEMPORARY TABLE t (a Int8)",
    "RENAME TABLE stowaway TO findings_2",
    "DETACH TABLE rounds",
    "ATTACH TABLE rounds",
    "OPTIMIZE TABLE rounds FINAL",
    "SET readonly = 0",
    "SYSTEM FLUSH LOGS",
    "SYSTEM DROP MARK CACHE",
    "KILL QUERY WHERE 1",
    "BACKUP TABLE canary.secrets TO File('{out}')",
    "GRANT SELECT ON *.* TO default",
    "WATCH stowaway",
]
KEYWORDS = ["SELECT", "FROM", "WHERE", "WITH", "AS", "UNION", "ALL", "JOIN", "ON", "IN", "INTO"]
KEYWORDS += ["OUTFILE", "FORMAT", "SETTINGS", "LIMIT", "(", ")", ",", ";", "'", '"', "`", "$$"]
KEYWORDS += ["$t$", "--", "/*", "*/", "#", "\\", "\n", "SHOW", "DESCRIBE", "TABLES", "DATABASES"]
_GAPS = [" ", " ", " ", "\n", "\t", " /* x */ ", " /* ; */ ", " --c\n", "  ", "\r\n"]


def _templated(text: str, paths: Paths) -> str:
    return (
        text.replace("{secret}", str(paths.secret_file))
        .replace("{files}", str(paths.files))
        .replace("{out}", str(paths.out))
        .replace("{port}", str(paths.port))
    )


def statements(paths: Paths) -> st.SearchStrategy[str]:
    """Statements from the fragments above, put together, re-cased and re-spaced; token
    soup; arbitrary text."""

    def pick(fragments: Sequence[str]) -> st.SearchStrategy[str]:
        return st.sampled_from([_templated(f, paths) for f in fragments])

    sources = st.one_of(
        pick(READABLE_SOURCES),
        pick(NAMES),
        pick(NAMES),
        pick(OUTSIDE_SOURCES),
        pick(TABLE_FUNCTIONS),
    )
    plain_expressions = st.sampled_from(["*", "s", "*", "s", "1", "count()", "table_id"])
    expressions = st.lists(
        st.one_of(plain_expressions, plain_expressions, plain_expressions, pick(EXPRESSIONS)),
        min_size=1,
        max_size=2,
    ).map(", ".join)

    def one_in(n: int) -> st.SearchStrategy[bool]:
        return st.integers(1, n).map(lambda k: k == 1)

    @st.composite
    def select(draw: st.DrawFn, depth: int = 0) -> str:
        """A SELECT whose parts open scopes (WITH, subqueries, WINDOW, UNION) over a few
        names: product tables, the canaries, CTE and window names that shadow them."""
        deeper = depth < 2
        parts = []
        if draw(one_in(3)):
            ctes = draw(
                st.lists(st.tuples(pick(SHADOWS), pick(CTE_BODIES)), min_size=1, max_size=2)
            )
            parts.append("WITH " + ", ".join(f"{name} AS ({body})" for name, body in ctes))
        elif draw(one_in(6)):
            parts.append(draw(pick(CTES)))
        parts.append(f"SELECT {draw(expressions)}")
        source = draw(sources)
        if deeper and draw(one_in(4)):
            source = f"({draw(select(depth + 1))})"
        parts.append(f"FROM {source}")
        if draw(one_in(6)):
            parts[-1] += f" AS a JOIN {draw(sources)} AS b ON 1"
        elif draw(one_in(6)):
            parts[-1] += f", {draw(sources)}"
        if deeper and draw(one_in(8)):
            parts.append(f"WHERE s IN ({draw(select(depth + 1))})")
        elif draw(one_in(8)):
            parts.append(f"WHERE s IN {draw(pick(NAMES))}")
        elif deeper and draw(one_in(12)):
            parts.append(f"WHERE exists({draw(select(depth + 1))})")
        if draw(one_in(5)):
            names = draw(st.lists(pick(SHADOWS), min_size=1, max_size=2))
            parts.append("WINDOW " + ", ".join(f"{name} AS ()" for name in names))
        if deeper and draw(one_in(4)):
            parts.append(f"UNION ALL {draw(select(depth + 1))}")
        return " ".join(parts)

    @st.composite
    def built(draw: st.DrawFn) -> str:
        text = draw(pick(STATEMENTS)) if draw(st.integers(0, 3)) == 0 else draw(select())
        if draw(st.booleans()):
            text += draw(pick(SUFFIXES))
        if draw(st.booleans()):  # re-spaced: comments and line breaks between the tokens
            words = text.split(" ")
            gaps = draw(st.lists(st.sampled_from(_GAPS), min_size=len(words), max_size=len(words)))
            text = "".join(w + g for w, g in zip(words, gaps, strict=True)).rstrip()
        case = draw(st.sampled_from(["as is"] * 6 + ["lower", "upper", "mixed"]))
        if case == "lower":
            text = text.lower()
        elif case == "upper":
            text = text.upper()
        elif case == "mixed":
            flips = draw(st.randoms(use_true_random=False))
            text = "".join(c.upper() if flips.random() < 0.5 else c.lower() for c in text)
        if draw(st.integers(0, 6)) == 0:
            lead = draw(pick(["-- a comment\n", "/* x */ ", "(", " \n", "/* ; */", "\ufeff"]))
            text = lead + text
        return text

    soup = st.lists(
        st.one_of(
            pick(KEYWORDS),
            pick(EXPRESSIONS),
            sources,
            pick(SUFFIXES),
            st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=6),
        ),
        min_size=1,
        max_size=14,
    ).map(" ".join)
    text = st.one_of(
        st.text(max_size=120),
        st.text(st.sampled_from("SELECT FROMWHE;$'\"`()*-/#\\\n 01canry.stowawy"), max_size=80),
    )
    return st.one_of(built(), built(), built(), scoped(), scoped(), soup, text)


@dataclass
class _Select:
    """One SELECT of a statement being built (see :func:`scoped`)."""

    source: str | _Select
    with_: str = ""
    where: _Select | None = None
    union: _Select | None = None
    window: str = ""
    joined: str = ""
    expression: str = "*"

    def text(self) -> str:
        source = f"({self.source.text()})" if isinstance(self.source, _Select) else self.source
        parts = [self.with_, f"SELECT {self.expression} FROM {source}{self.joined}"]
        if self.where is not None:
            parts.append(f"WHERE s IN ({self.where.text()})")
        parts.append(self.window)
        if self.union is not None:
            parts.append(f"UNION ALL {self.union.text()}")
        return " ".join(part for part in parts if part)


_READ_AS_S = ["table_id AS s", "toString(count()) AS s", "'x' AS s", "*", "check AS s"]
_SAFE_BODIES = ["SELECT 1 AS s", "SELECT 'x' AS s", "SELECT table_id AS s FROM rounds_v"]


@st.composite
def scoped(draw: st.DrawFn) -> str:
    """Statements that pass the text checks and name nothing unreadable but one name,
    declared (a CTE, a window) in one scope and read in another or the same: SELECTs
    nested in FROM, in ``IN (...)``, and after UNION ALL, the product's tables elsewhere.
    Where the reader's idea of a CTE's scope is not the engine's, a canary is read."""
    root = _Select(draw(st.sampled_from(READABLE_SOURCES)))
    nodes = [root]
    for _ in range(draw(st.integers(0, 3))):
        parent = draw(st.sampled_from(nodes))
        child = _Select(draw(st.sampled_from(READABLE_SOURCES)))
        slot = draw(st.sampled_from(["source", "where", "union"]))
        if slot == "source" and not isinstance(parent.source, _Select):
            parent.source = child
        elif slot == "where" and parent.where is None:
            parent.where = child
        elif parent.union is None:
            parent.union = child
        else:
            continue
        nodes.append(child)
    for node in nodes:
        plain = not isinstance(node.source, _Select)
        node.expression = draw(st.sampled_from(_READ_AS_S if plain else ["*", "s"]))
    name = draw(st.sampled_from(SHADOWS))
    declared, reads = draw(st.sampled_from(nodes)), draw(st.sampled_from(nodes))
    if draw(st.booleans()):
        declared.with_ = f"WITH {name} AS ({draw(st.sampled_from(_SAFE_BODIES))})"
    else:
        declared.window = draw(
            st.sampled_from([f"WINDOW {name} AS ()", f"WINDOW w0 AS (), {name} AS ()"])
        )
    how = draw(st.sampled_from(["from", "from", "join", "in"]))
    if how == "from" and not isinstance(reads.source, _Select):
        reads.source, reads.expression = name, draw(st.sampled_from(["s", "*"]))
    elif how == "in" and reads.where is None:
        reads.where = _Select(name, expression="s")
    else:
        reads.joined = f" AS a, {name} AS b"
        reads.expression = draw(st.sampled_from(["b.s", "*"]))
    return root.text()
