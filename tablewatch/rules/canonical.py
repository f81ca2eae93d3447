"""RFC 8785 JSON Canonicalization Scheme (JCS) for protocol events: what a signature covers.

:func:`canonical_json` writes a parsed JSON value (``dict``, ``list``, ``str``, ``int``,
``bool``, ``None``) as JCS does:

- object members sorted by their names compared as UTF-16 code units (RFC 8785
  § 3.2.3: a name with a character beyond U+FFFF sorts by its surrogate pair, so
  U+1F600 comes before U+FB33), arrays in their order;
- no whitespace between tokens;
- strings as ECMAScript's ``JSON.stringify`` writes them (§ 3.2.2.2): ``\\"`` and
  ``\\\\``, ``\\b \\t \\n \\f \\r``, the other characters below U+0020 as ``\\u00xx``
  (lowercase hex), every other character as itself, UTF-8 encoded (``/``, DEL,
  U+2028 and non-ASCII are not escaped);
- numbers in ECMAScript form (§ 3.2.2.3). The protocol's numbers are integers, and
  an integer below 2^53 in magnitude is written as its decimal digits (``-0`` was
  already read as ``0``); any other number is refused (``ValueError``), as is a
  string holding a lone surrogate (not Unicode text: JCS requires it).
"""

from __future__ import annotations

_SAFE = 2**53  # integers in (-2^53, 2^53) are exact in a double: ECMAScript writes their digits
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
for _code in range(0x20):
    _ESCAPES.setdefault(chr(_code), f"\\u{_code:04x}")
_ESCAPE_TABLE = str.maketrans(_ESCAPES)
_NEEDS_ESCAPE = frozenset(_ESCAPES)


def canonical_json(value: object) -> bytes:
    """``value`` in RFC 8785 canonical form, as UTF-8 bytes; ``ValueError`` for a value
    it cannot hold (a float, an integer of 2^53 or more, a lone surrogate, a type JSON
    does not have)."""
    parts: list[str] = []
    _write(value, parts)
    try:
        return "".join(parts).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("a string holds a lone surrogate: not Unicode text") from None


def _write(value: object, parts: list[str]) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, str):
        parts.append(_string(value))
    elif isinstance(value, int):
        if not -_SAFE < value < _SAFE:
            raise ValueError(f"integer {value} is not exact in JSON (beyond 2^53)")
        parts.append(str(int(value)))
    elif isinstance(value, dict):
        names = list(value)
        for name in names:
            if not isinstance(name, str):
                raise ValueError(f"object member name {name!r} is not a string")
        parts.append("{")
        first = True
        for name in sorted(names, key=_utf16):
            if not first:
                parts.append(",")
            first = False
            parts.append(_string(name))
            parts.append(":")
            _write(value[name], parts)
        parts.append("}")
    elif isinstance(value, list | tuple):
        parts.append("[")
        for index, item in enumerate(value):
            if index:
                parts.append(",")
            _write(item, parts)
        parts.append("]")
    elif isinstance(value, float):
        raise ValueError(f"number {value!r} is not an integer: this protocol's numbers are")
    else:
        raise ValueError(f"{type(value).__name__} is not a JSON value")


def _utf16(name: str) -> bytes:
    """The sort key of a member name: its UTF-16 code units, big-endian (bytes compare
    as the units do)."""
    try:
        return name.encode("utf-16-be")
    except UnicodeEncodeError:
        raise ValueError("a member name holds a lone surrogate: not Unicode text") from None


def _string(text: str) -> str:
    if _NEEDS_ESCAPE.isdisjoint(text):
        return f'"{text}"'
    return '"' + text.translate(_ESCAPE_TABLE) + '"'
