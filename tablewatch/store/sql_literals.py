"""Values written into a statement as ClickHouse literals, never as its text.

Every value a caller gives (a table id, a round id, a filter) reaches SQL only through
:func:`quote` or :func:`integer`: a quote, a backslash, a semicolon or a comment marker in
it is a character of the string, so no value changes what a statement does.
"""

from __future__ import annotations


def quote(value: str) -> str:
    """``value`` as a single-quoted ClickHouse string literal (``\\``, ``'`` and NUL escaped:
    the readers refuse a statement holding a NUL character)."""
    if not isinstance(value, str):
        raise TypeError(f"not text: {value!r}")
    escaped = value.replace("\\", "\\\\").replace("'", "\\'").replace("\x00", "\\0")
    return "'" + escaped + "'"


def integer(value: int) -> str:
    """An int (not a bool) as digits."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"not an integer: {value!r}")
    return str(value)
