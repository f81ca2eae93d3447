"""Fuzzing the decoder: inputs (arbitrary bytes, mutated simulator events, generated JSON)
and what must hold for each.

- ``decode_event`` returns an event or raises :class:`EventRejected`, nothing else; a
  rejection has a reason (at most 300 characters), prints as one printable line, and
  names a field whenever the input is a JSON object refused for one of its fields;
- an event that decodes decodes again, equal, from its own encoding; a valid event
  written another way (keys reordered, whitespace, characters escaped, optional fields
  given as null) decodes to the same event;
- ``decode_lines`` agrees with ``decode_event`` line by line (same events, same
  rejections at ``file:line``; a key given twice is the one documented difference),
  with ``plain`` set or not;
- ``decode_whole_lines`` of lines (valid events among them cut in two, put two on a line)
  gives the events of ``decode_lines`` when it gives any, and gives them whenever no
  line fails and each is an object alone on its line.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import strategies as st

from tablewatch.rules.decode import (
    EventRejected,
    decode_event,
    decode_lines,
    decode_whole_lines,
    encode_event,
    is_plain,
)
from tablewatch.rules.events import AnyEvent
from tests.fuzz.corpus import FIELD_NAMES, OPTIONAL_FIELDS, TYPE_NAMES, as_pairs, valid_raws
from tests.fuzz.tally import Tally

Pairs = list[tuple[str, str]]  # (key, the value's JSON text)

# ---- values that break something ------------------------------------------------------

_INTS = [0, 1, -1, 2, 7, 8, 2**31, 2**32, 2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1, 2**63]
_INTS += [2**64, 2**64 + 1, -(2**63), -(2**63) - 1, 10**20, -(10**20)]
_NUMBER_TEXTS = ["-0", "0.0", "1.0", "1e3", "1E400", "-1e-400", "1.5", "25e2", "0e0"]
_NUMBER_TEXTS += ["01", "+1", "NaN", "Infinity", "-Infinity", "0x10", "1_000", ".5", "5.", "--1"]
_TS_TEXTS = [
    "2026-11-29T20:15:03.123Z",
    "1999-12-31T23:59:59.999Z",
    "2200-01-01T00:00:00.000Z",
    "2000-01-01T00:00:00.000Z",
    "2199-12-31T23:59:59.999Z",
    "2025-02-29T10:00:00.000Z",
    "2024-02-29T10:00:00.000Z",
    "2026-11-29T24:00:00.000Z",
    "2026-11-29T23:60:00.000Z",
    "2026-11-29T23:59:60.000Z",
    "2026-13-01T00:00:00.000Z",
    "2026-00-10T00:00:00.000Z",
    "2026-11-29 20:15:03.123Z",
    "2026-11-29T20:15:03.123z",
    "2026-11-29T20:15:03,123Z",
    "2026-11-29T20:15:03.12Z",
    "2026-11-29T20:15:03.123+00:00",
    "\uff12\uff10\uff12\uff16-11-29T20:15:03.123Z",
    "2026-11-29T20:15:03.1\u0662\u0663Z",
    "0000-01-01T00:00:00.000Z",
    "9999-12-31T23:59:59.999Z",
    "2026-11-29T20:15:03.123Z\x00",
    "",
]
_NASTY_CHARS = "\x00\x01\x07\x08\t\n\r\x1b\x1f\x7f\x80\x85\x9f\xa0\xad\u200b\u200e\u2028\u2029"
_NASTY_CHARS += "\u202e\ufeff\ufffd\ufffe\U0001f600\U000e0001\U0010ffff"


def _json_string(text: str, ascii_only: bool) -> str:
    return json.dumps(text, ensure_ascii=ascii_only)


_texts = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(_NASTY_CHARS), max_size=40)
_long_texts = st.builds(
    lambda piece, times: piece * times,
    st.text(alphabet=st.sampled_from("a\u00e9\u4e2d\x01 "), min_size=1, max_size=3),
    st.sampled_from([21, 32, 63, 64, 65, 200, 511, 512, 513, 20_000, 60_000]),
)
_string_texts = st.one_of(
    st.builds(_json_string, _texts | _long_texts, st.booleans()),
    st.builds(_json_string, st.sampled_from(_TS_TEXTS), st.booleans()),
    st.sampled_from(
        [
            '"\\ud800"',  # a lone surrogate, escaped
            '"\\udc00\\ud800"',
            '"a\\u0000b"',
            '"\\u001b[31m"',
            '"\\x41"',  # not a JSON escape
            '"\\u12"',
            '"unterminated',
            '"\t"',  # a raw control character in a string
            '"\x00"',
            '"\\/"',
            '""',
            '" "',
        ]
    ),
)
_number_texts = st.one_of(
    st.sampled_from(_INTS).map(str),
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(_NUMBER_TEXTS),
    st.sampled_from([20, 300, 4_300, 5_000, 20_000]).map(lambda n: "9" * n),
)


def _deep(opening: str, closing: str, depth: int) -> str:
    return opening * depth + closing * depth


_container_texts = st.one_of(
    st.sampled_from(["[]", "{}", "[1]", '{"a":1}', "[[]]", '{"":null}', "[1,]", "{,}"]),
    st.builds(_deep, st.just("["), st.just("]"), st.sampled_from([2, 64, 1_000, 10_000, 100_000])),
    st.builds(
        _deep, st.just('{"a":'), st.just("}"), st.sampled_from([2, 64, 1_000, 10_000, 100_000])
    ).map(lambda text: text.replace('{"a":}', '{"a":1}')),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _texts,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_texts, inner, max_size=4),
        max_leaves=12,
    ).map(json.dumps),
)
value_texts = st.one_of(
    _string_texts,
    _number_texts,
    st.sampled_from(["true", "false", "null"]),
    _container_texts,
    st.sampled_from(TYPE_NAMES).map(json.dumps),
)


def _value_of_pool(field: str) -> list[str]:
    """The values other events give ``field`` (a card where a seat goes, say)."""
    seen: dict[str, None] = {}
    for raw in valid_raws()[:400]:
        for key, value in as_pairs(raw):
            if key == field:
                seen[json.dumps(value)] = None
    return list(seen)


_POOL_VALUES = {name: _value_of_pool(name) for name in sorted(FIELD_NAMES)}
_ANY_POOL_VALUE = [value for values in _POOL_VALUES.values() for value in values]
_keys = st.one_of(
    st.sampled_from(sorted(FIELD_NAMES)),
    _texts,
    _long_texts,
    st.sampled_from(["", "V", "Type", "amount ", "\u0430mount", "seq\x00", "__proto__", "a`b"]),
    st.sampled_from(["x - at `$.seat", "`", "``", "\n", "k\n`", " - at `$`"]),
)


# ---- from pairs to text ---------------------------------------------------------------


def render(pairs: Pairs, *, spaces: list[str] | None = None, escape_keys: bool = False) -> str:
    """An object of ``pairs`` as JSON text (keys may repeat); ``spaces``: what goes between
    tokens, in turn."""
    gaps = iter(spaces or [])

    def gap() -> str:
        return next(gaps, "")

    parts = []
    for key, value in pairs:
        key_text = _escaped_key(key) if escape_keys else json.dumps(key, ensure_ascii=False)
        parts.append(f"{gap()}{key_text}{gap()}:{gap()}{value}{gap()}")
    return "{" + ",".join(parts) + gap() + "}"


def _escaped_key(key: str) -> str:
    escaped = (f"\\u{ord(c):04x}" if c.isascii() and c.isalnum() else c for c in key)
    return '"' + "".join(escaped) + '"'


def pairs_of(raw: bytes) -> Pairs:
    return [(key, json.dumps(value, ensure_ascii=False)) for key, value in as_pairs(raw)]


pool = st.sampled_from(valid_raws())


# ---- structural mutations -------------------------------------------------------------


@st.composite
def mutated_objects(draw: st.DrawFn) -> bytes:
    """A valid event with one to four of its fields changed, removed, added or repeated."""
    pairs = pairs_of(draw(pool))
    for _ in range(draw(st.integers(1, 4))):
        operation = draw(
            st.sampled_from(["set", "swap", "drop", "add", "twice", "type", "null", "order"])
        )
        index = draw(st.integers(0, max(len(pairs) - 1, 0)))
        if not pairs:
            pairs.append((draw(_keys), draw(value_texts)))
        elif operation == "set":
            pairs[index] = (pairs[index][0], draw(value_texts))
        elif operation == "swap":  # a value that is valid for another field
            pairs[index] = (pairs[index][0], draw(st.sampled_from(_ANY_POOL_VALUE)))
        elif operation == "drop":
            del pairs[index]
        elif operation == "add":
            pairs.insert(index, (draw(_keys), draw(value_texts)))
        elif operation == "twice":
            key, value = pairs[index]
            again = draw(st.sampled_from([value, *_POOL_VALUES.get(key, [value])[:5]]))
            pairs.insert(draw(st.integers(0, len(pairs))), (key, again))
        elif operation == "type":
            type_text = draw(st.sampled_from(TYPE_NAMES).map(json.dumps) | value_texts)
            pairs = [(k, type_text if k == "type" else v) for k, v in pairs]
        elif operation == "null":
            pairs[index] = (pairs[index][0], "null")
        else:
            draw(st.randoms(use_true_random=False)).shuffle(pairs)
    text = render(pairs)
    return draw(_encodings(text))


@st.composite
def _encodings(draw: st.DrawFn, text: str) -> bytes:
    """``text`` as UTF-8, mostly; sometimes with bytes no UTF-8 decoder takes, a BOM, other
    encodings, or wrapped."""
    kind = draw(
        st.sampled_from(["utf-8"] * 12 + ["bom", "utf-16", "latin-1", "bad", "wrap", "tail"])
    )
    if kind == "utf-8":
        return text.encode("utf-8", "surrogatepass")
    raw = text.encode("utf-8", "surrogatepass")
    if kind == "bom":
        return b"\xef\xbb\xbf" + raw
    if kind == "utf-16":
        return text.encode("utf-16", "surrogatepass")
    if kind == "latin-1":
        return text.encode("latin-1", "replace")
    if kind == "bad":
        position = draw(st.integers(0, len(raw)))
        junk = draw(
            st.sampled_from(
                [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"]
            )
        )
        return raw[:position] + junk + raw[position:]
    if kind == "wrap":
        frame = draw(st.sampled_from([b"[%s]", b"[%s,%s]", b'{"e":%s}', b"%s%s", b"  %s\n"]))
        return frame.replace(b"%s", raw)
    return raw + draw(st.sampled_from([b"x", b",", b"}", b"]", b"\x00", b" 1", b"//", b"{}"]))


# ---- byte-level mutations -------------------------------------------------------------

_SPECIAL_BYTES = [b'"', b"\\", b"{", b"}", b"[", b"]", b":", b",", b"\x00", b"\x7f", b"\xff"]
_SPECIAL_BYTES += [b"\xc3", b"\n", b"\t", b"\\u", b"\\ud83d", b"e", b"-", b"9" * 30, b" "]


@st.composite
def mutated_bytes(draw: st.DrawFn) -> bytes:
    """A valid event with bytes flipped, inserted, deleted, repeated, or cut off."""
    raw = bytearray(draw(pool))
    for _ in range(draw(st.integers(1, 6))):
        operation = draw(st.sampled_from(["flip", "insert", "delete", "repeat", "cut", "splice"]))
        at = draw(st.integers(0, len(raw)))
        if operation == "flip" and at < len(raw):
            raw[at] ^= 1 << draw(st.integers(0, 7))
        elif operation == "insert":
            raw[at:at] = draw(st.sampled_from(_SPECIAL_BYTES) | st.binary(min_size=1, max_size=8))
        elif operation == "delete":
            del raw[at : at + draw(st.integers(1, 12))]
        elif operation == "repeat":
            piece = raw[at : at + draw(st.integers(1, 24))]
            raw[at:at] = piece * draw(st.integers(1, 3))
        elif operation == "cut":
            del raw[at:]
        else:
            other = draw(pool)
            raw[at:] = other[draw(st.integers(0, len(other))) :]
    return bytes(raw)


# ---- generated JSON -------------------------------------------------------------------


@st.composite
def generated_objects(draw: st.DrawFn) -> bytes:
    """Objects built from the protocol's field names (and others) with values of any type,
    of any size and depth, keys repeated."""
    count = draw(st.sampled_from([0, 1, 3, 5, 7, 9, 12, 30, 2_000]))
    pairs: Pairs = []
    if draw(st.booleans()):
        pairs.append(("v", draw(st.sampled_from(["1", "1", "2", "0", '"1"', "true", "1.0"]))))
        pairs.append(("type", draw(st.sampled_from(TYPE_NAMES).map(json.dumps) | value_texts)))
    if count == 2_000:  # a great many keys: cheap ones
        pairs += [(f"k{i}", "0") for i in range(count)]
    else:
        for _ in range(count):
            pairs.append((draw(_keys), draw(value_texts)))
    draw(st.randoms(use_true_random=False)).shuffle(pairs)
    return draw(_encodings(render(pairs)))


_HOSTILE_SEEDS = [
    b"",
    b" ",
    b"\n",
    b"\x0c",
    b"null",
    b"true",
    b"0",
    b"[]",
    b"{}",
    b'""',
    b"\xef\xbb\xbf{}",
    b"\xff\xfe{\x00}\x00",
    b"{" * 50_000,
    b"[" * 200_000,
    b'{"v":1' + b"," * 10_000 + b"}",
    b'"' + b"a" * 100_000 + b'"',
    b"1" * 10_000,
    b"-" + b"9" * 5_000,
    b'{"' + b"k" * 60_000 + b'":1}',
]

any_bytes = st.one_of(
    st.binary(max_size=600),
    st.sampled_from(_HOSTILE_SEEDS),
    st.lists(st.sampled_from([*_SPECIAL_BYTES, b"true", b"null", b'"v"', b"1"]), max_size=60).map(
        b"".join
    ),
)
any_texts = st.text(alphabet=st.characters(codec=None) | st.sampled_from(_NASTY_CHARS))
any_texts = any_texts | st.builds(
    lambda raw, at, bad: raw.decode()[:at] + bad + raw.decode()[at:],
    pool,
    st.integers(0, 200),
    st.sampled_from(["\ud800", "\udfff", "\x00", "\\", "\x7f"]),
)

# ---- equivalent texts: must decode to the same event ------------------------------------

_WHITESPACE = st.sampled_from(["", "", " ", "\t", "\n", "\r\n", "  \n\t"])


@st.composite
def equivalent_texts(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A valid event and the same event written another way: keys in another order,
    whitespace between tokens, characters of strings and keys escaped, optional fields
    given as null."""
    raw = draw(pool)
    obj: dict[str, Any] = json.loads(raw)
    pairs = [(k, _written(v, draw(st.booleans()), draw(st.booleans()))) for k, v in obj.items()]
    for name in sorted(OPTIONAL_FIELDS.get(str(obj["type"]), frozenset()) - obj.keys()):
        if draw(st.booleans()):
            pairs.append((name, "null"))
    random.Random(draw(st.integers(0, 2**32))).shuffle(pairs)
    spaces = draw(st.lists(_WHITESPACE, min_size=4 * len(pairs) + 1, max_size=4 * len(pairs) + 1))
    text = render(pairs, spaces=spaces, escape_keys=draw(st.booleans()))
    return raw, text.encode()


def _written(value: Any, escape: bool, ascii_only: bool) -> str:
    if isinstance(value, str) and escape:
        return '"' + "".join(_escape(c) for c in value) + '"'
    return json.dumps(value, ensure_ascii=ascii_only)


def _escape(c: str) -> str:
    if c == "/":
        return "\\/"
    if ord(c) > 0xFFFF:  # a surrogate pair
        code = ord(c) - 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04X}"
    return f"\\u{ord(c):04x}"


# ---- the properties -------------------------------------------------------------------


def _keys_of(raw: bytes | str) -> list[str] | None:
    """The keys of ``raw`` if it is UTF-8 JSON text of one object (as Python's parser reads
    it), else None."""
    keys: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys.extend(key for key, _ in items)
        return dict(items)

    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        decoded = json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None
    return keys if isinstance(decoded, dict) else None


def check_rejection(rejected: EventRejected, raw: bytes | str, where: str) -> None:
    assert rejected.where == where
    assert isinstance(rejected.reason, str)
    assert rejected.reason.strip(), "a rejection without a reason"
    assert len(rejected.reason) <= 300, rejected.reason[:100]
    if rejected.field is not None:  # the empty string when the key at fault is ""
        assert len(rejected.field) <= 64, rejected.field[:100]
    if rejected.event_id is not None:
        assert 0 < len(rejected.event_id) <= 128
    shown = str(rejected)
    assert shown.isprintable(), repr(shown)
    assert rejected.as_dict()["reason"] == rejected.reason
    keys = _keys_of(raw)
    if keys is None or rejected.reason.startswith("bad JSON"):
        return
    assert rejected.field is not None, f"an object refused with no field: {rejected.reason!r}"
    named = rejected.field in keys or rejected.field in FIELD_NAMES
    clipped = rejected.field.endswith("\u2026") and any(
        len(key) > 64 and key.startswith(rejected.field[:-1]) for key in keys
    )
    assert named or clipped, f"field {rejected.field!r} is not a key of the object: {keys}"
    if rejected.reason.startswith("Object contains unknown field"):  # that key, as given
        assert rejected.field in keys or clipped, (rejected.field, keys)


def decoded_or_rejected(raw: bytes | str, tally: Tally, where: str = "fuzz") -> Any:
    """``decode_event(raw)`` checked: the event, or the rejection."""
    try:
        event = decode_event(raw, where)
    except EventRejected as rejected:
        check_rejection(rejected, raw, where)
        tally.saw("rejected", rejected.reason)
        return rejected
    again = decode_event(encode_event(event))
    assert again == event, "an event does not decode from its own encoding"
    tally.saw("decoded")
    return event


def check_event(raw: bytes | str, tally: Tally) -> None:
    tally.count()
    decoded_or_rejected(raw, tally)


def check_equivalent(pair: tuple[bytes, bytes], tally: Tally) -> None:
    tally.count()
    raw, written = pair
    event = decode_event(raw)
    try:
        other = decode_event(written)
    except EventRejected as rejected:
        raise AssertionError(f"a valid event written another way is refused: {rejected}") from None
    assert other == event, "a valid event written another way decodes to another event"
    tally.saw("decoded")


def check_lines(lines: list[bytes], tally: Tally) -> None:
    """``decode_lines`` against ``decode_event``, line by line."""
    tally.count()
    expected: list[AnyEvent | EventRejected | None] = []
    for number, line in enumerate(lines, 1):
        where = f"f.jsonl:{number}"
        expected.append(decoded_or_rejected(line, tally, where) if line.strip() else None)
    for plain in sorted({False, is_plain(b"".join(lines))}):
        decoded = decode_lines(lines, "f.jsonl", plain=plain)
        assert len(decoded.events) + len(decoded.failed) == len(lines)
        failed = dict(decoded.failed)
        assert len(failed) == len(decoded.failed), "a line failed twice"
        events = iter(decoded.events)
        for index, want in enumerate(expected):
            if want is None:
                assert index in failed and failed[index] is None, f"blank line {index}"
            elif isinstance(want, EventRejected):
                got = failed.get(index)
                if index not in failed:
                    assert "given twice" in want.reason, (index, want)
                    next(events)  # the audit judges the last of a repeated key
                else:
                    assert got is not None
                    assert got.as_dict() == want.as_dict(), (index, got, want)
            else:
                assert index not in failed, (index, failed.get(index))
                assert next(events) == want, f"line {index} decodes otherwise"
        assert next(events, None) is None
        in_order = list(decoded.in_order())
        assert len(in_order) == len(decoded.events) + sum(1 for r in failed.values() if r)
    tally.saw("block")


line_lists = st.lists(
    st.one_of(
        pool,
        pool,
        mutated_objects(),
        mutated_bytes(),
        st.sampled_from([b"", b"  ", b"\r", b"\t\x0c"]),
        any_bytes.filter(lambda raw: b"\n" not in raw),
    ),
    max_size=12,
)


@st.composite
def _reframed(draw: st.DrawFn) -> list[bytes]:
    """Valid events framed wrongly: one cut in two lines, two on one line (apart by a space
    or nothing), one with a space before or after: what would put a value on a line not
    its own if framing were judged by the decoder alone."""
    first, second = draw(pool), draw(pool)
    cut = draw(st.integers(1, len(first) - 1))
    return draw(
        st.sampled_from(
            [
                [first[:cut], first[cut:]],
                [first + b" " + second],
                [first + second],
                [first[:cut], first[cut:] + second],
                [b" " + first],
                [first + b" "],
            ]
        )
    )


whole_line_lists = st.lists(
    st.one_of(
        st.lists(pool, min_size=1, max_size=6),
        st.lists(st.one_of(pool, pool, pool, mutated_objects(), mutated_bytes()), max_size=4),
        _reframed(),
        st.lists(st.sampled_from([b"", b"  ", b"\r", b"{}"]), max_size=2),
    ),
    max_size=4,
).map(lambda groups: [line for group in groups for line in group if b"\n" not in line])


def check_whole_lines(lines: list[bytes], tally: Tally) -> None:
    """``decode_whole_lines`` against ``decode_lines``: the same events when it gives any,
    and it gives them whenever no line fails and each is an object alone on its line."""
    tally.count()
    events = decode_whole_lines(b"".join(line + b"\n" for line in lines))
    decoded = decode_lines(lines, "f.jsonl")
    framed = all(line[:1] == b"{" and line[-1:] == b"}" for line in lines)
    if events is not None:
        assert not decoded.failed, f"lines {decoded.failed} fail alone but not together"
        assert events == decoded.events, "decoded together otherwise than line by line"
        tally.saw("decoded")
    else:
        assert decoded.failed or not framed, "framed lines that decode alone not decoded"
        tally.saw("refused" if decoded.failed else "not framed")
