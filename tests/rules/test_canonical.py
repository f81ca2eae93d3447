"""RFC 8785 (JSON Canonicalization Scheme): the vectors of the RFC that apply to the protocol
(member order by UTF-16 code units, string escaping, literals, integers)."""

from __future__ import annotations

import json

import pytest

from tablewatch.rules.canonical import canonical_json


def test_rfc8785_sorting_example() -> None:
    """§ 3.2.3: names compared as UTF-16 code units, so the emoji (a surrogate pair,
    0xD83D...) sorts before U+FB33 although its code point is larger."""
    document = json.loads(
        '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return",'
        ' "\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",'
        ' "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control",'
        ' "\\u00f6": "Latin Small Letter O With Diaeresis"}'
    )
    text = canonical_json(document).decode("utf-8")
    names = [name for name in json.loads(text)]
    assert names == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]
    assert text == (
        '{"\\r":"Carriage Return","1":"One","\u0080":"Control",'
        '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",'
        '"\U0001f600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}'
    )


def test_rfc8785_serialization_example_without_its_floats() -> None:
    """§ 3.2.4's example, its "numbers" member (floating point, which the protocol does
    not have) left out: literals, and a string of every escaping rule."""
    document = json.loads(
        '{\n  "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n'
        '  "literals": [null, true, false]\n}'
    )
    expected = '{"literals":[null,true,false],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    assert canonical_json(document) == expected.encode("utf-8")
    # the RFC's UTF-8 bytes of that output, the "numbers" member taken out
    assert canonical_json(document).hex(" ") == (
        "7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72 75 65 2c 66 61 6c 73"
        " 65 5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30 30 66 5c 6e 41 27"
        " 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d"
    )


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("\b\t\n\f\r", "\\b\\t\\n\\f\\r"),  # the short escapes
        ("\x00\x01\x1f", "\\u0000\\u0001\\u001f"),  # other controls: \u00xx, lowercase hex
        ("\x7f\x80\x9f", "\x7f\x80\x9f"),  # DEL and C1 are not escaped
        ("\u2028\u2029", "\u2028\u2029"),  # nor the line separators
        ("a/b", "a/b"),  # nor the solidus
        ('"\\', '\\"\\\\'),
        ("\U0001f600", "\U0001f600"),  # beyond the BMP: the character itself, in UTF-8
    ],
)
def test_string_escaping(text: str, written: str) -> None:
    assert canonical_json(text) == f'"{written}"'.encode()


@pytest.mark.parametrize(
    ("number", "written"),
    [
        (0, "0"),
        (1, "1"),
        (-1, "-1"),
        (9007199254740991, "9007199254740991"),  # 2^53 - 1 (RFC 8785 Appendix B)
        (-9007199254740991, "-9007199254740991"),
    ],
)
def test_integers(number: int, written: str) -> None:
    assert canonical_json(number) == written.encode()


def test_minus_zero_as_json_reads_it() -> None:
    assert canonical_json(json.loads('{"amount": -0}')) == b'{"amount":0}'


def test_nested_values_keep_array_order_and_sort_every_object() -> None:
    value = {"b": [3, {"z": 1, "a": None}, "x"], "a": {"d": True, "c": False}, "": 0}
    assert canonical_json(value) == (
        b'{"":0,"a":{"c":false,"d":true},"b":[3,{"a":null,"z":1},"x"]}'
    )


def test_an_event_in_canonical_form() -> None:
    raw = (
        b'{ "v": 1, "type": "wager", "event_id": "e-7", "table_id": "LIR-07", "seq": 7,\n'
        b' "ts": "2026-11-29T20:15:01.200Z", "round_id": "R-1", "seat": 2, "bet": "bet1",'
        b' "amount": 2500, "kid": "k1" }'
    )
    assert canonical_json(json.loads(raw)) == (
        b'{"amount":2500,"bet":"bet1","event_id":"e-7","kid":"k1","round_id":"R-1","seat":2,'
        b'"seq":7,"table_id":"LIR-07","ts":"2026-11-29T20:15:01.200Z","type":"wager","v":1}'
    )


@pytest.mark.parametrize(
    "value",
    [
        1.5,
        1.0,  # a float, even a whole one: the protocol's numbers are integers
        2**53,
        -(2**53),
        "\ud800",  # a lone surrogate is not Unicode text
        {"\udfff": 1},
        {1: "name not a string"},
        b"bytes",
        {"set": {1}},
    ],
)
def test_refused(value: object) -> None:
    with pytest.raises(ValueError):
        canonical_json(value)
