"""Stored text made safe to print on a terminal.

What the store holds (ids, findings' messages, pit names, notes) may have been written by
anyone with write access to it; printed as it is, an ESC or a C1 control could move the
cursor, rewrite lines already shown, retitle the window or hide what follows, and a bidi
control could show the text in another order than it is. :func:`printable` shows each such
character as an escape (``\\x1b``, ``\\u202e``) instead: the text shown is the text stored,
every character visible. A backslash is left as it is (ids may hold one), so an escape shown
could also be those characters typed: the JSON output (:func:`json_printable`) is exact.
"""

from __future__ import annotations

import re

__all__ = ["json_printable", "printable"]

# DEL, the C1 controls, and the bidi marks, embeddings, overrides and isolates
_OTHER = "\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[\x00-\x1f{_OTHER}]")  # and the C0 controls
_CONTROL_NOT_NEWLINE = re.compile(f"[\x00-\x09\x0b-\x1f{_OTHER}]")
_JSON_UNSAFE = re.compile(f"[{_OTHER}]")  # JSON encoders escape the C0 controls
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character shown as an escape; ``lines``: a line break
    (``\\n``) is kept as one (for text of several lines the program itself wrote)."""
    pattern = _CONTROL_NOT_NEWLINE if lines else _CONTROL
    return pattern.sub(_escape, text)


def json_printable(text: str) -> str:
    """JSON text (C0 controls already escaped by the encoder) with DEL, the C1 controls
    and the bidi controls written as ``\\uXXXX`` too: the same value once parsed."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
