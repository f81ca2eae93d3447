"""Reading SQL text just enough: splitting statements, and telling a read-only query.

Comments and quoted strings are recognised so that a ``;`` or a keyword inside
them does not count.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

READ_ONLY_KEYWORDS = frozenset({"SELECT", "WITH", "SHOW", "DESCRIBE", "DESC"})
_KEYWORD = re.compile(r"[A-Za-z_]+")
_OUTFILE = re.compile(r"\bINTO\s+OUTFILE\b", re.IGNORECASE)
_QUOTES = "'\"`"


def _pieces(sql: str) -> Iterator[tuple[str, str]]:
    """``(kind, text)`` pieces of ``sql``: kind ``code``, ``quoted`` or ``comment``."""
    i, n, start = 0, len(sql), 0
    while i < n:
        c = sql[i]
        if c in _QUOTES:
            end = _quote_end(sql, i)
        elif sql.startswith("--", i) or c == "#":
            newline = sql.find("\n", i)
            end = n if newline < 0 else newline
        elif sql.startswith("/*", i):
            close = sql.find("*/", i + 2)
            end = n if close < 0 else close + 2
        else:
            i += 1
            continue
        if start < i:
            yield "code", sql[start:i]
        yield ("quoted" if c in _QUOTES else "comment"), sql[i:end]
        i = start = end
    if start < n:
        yield "code", sql[start:]


def _quote_end(sql: str, i: int) -> int:
    quote, j, n = sql[i], i + 1, len(sql)
    while j < n:
        if sql[j] == "\\":
            j += 2
        elif sql[j] == quote:
            if j + 1 < n and sql[j + 1] == quote:  # '' inside '...'
                j += 2
            else:
                return j + 1
        else:
            j += 1
    return n


def split_statements(sql: str) -> list[str]:
    """The statements of ``sql`` (separated by ``;``), stripped; comment-only ones dropped."""
    statements: list[str] = []
    current: list[str] = []
    has_code = False
    for kind, text in _pieces(sql):
        if kind != "code":
            current.append(text)
            has_code = has_code or kind == "quoted"
            continue
        parts = text.split(";")
        for k, part in enumerate(parts):
            if k > 0:
                if has_code:
                    statements.append("".join(current).strip())
                current, has_code = [], False
            current.append(part)
            has_code = has_code or bool(part.strip())
    if has_code:
        statements.append("".join(current).strip())
    return statements


def code_only(sql: str) -> str:
    """``sql`` with comments removed and quoted strings/identifiers blanked."""
    out = []
    for kind, text in _pieces(sql):
        if kind == "code":
            out.append(text)
        elif kind == "quoted":
            out.append(text[0] * 2)
        else:
            out.append(" ")
    return "".join(out)


def read_only_refusal(sql: str) -> str | None:
    """Why ``sql`` is not one read-only statement, or None when it is.

    Allowed: a single SELECT, WITH ... SELECT, SHOW, DESCRIBE (DESC); not
    ``INTO OUTFILE``. (Callers should also run it with ``readonly`` set: this
    is the first line, the engine the second.)
    """
    statements = split_statements(sql)
    if not statements:
        return "no statement"
    if len(statements) > 1:
        return "one statement at a time"
    code = code_only(statements[0]).lstrip(" \t\r\n(")
    match = _KEYWORD.match(code)
    keyword = match.group(0).upper() if match else ""
    if keyword not in READ_ONLY_KEYWORDS:
        allowed = ", ".join(sorted(READ_ONLY_KEYWORDS))
        return f"only read-only statements ({allowed}); not {keyword or code[:20]!r}"
    if _OUTFILE.search(code):
        return "INTO OUTFILE writes a file"
    return None
