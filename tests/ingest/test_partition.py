"""Sharing a file's tables among processes: every line kept by exactly one share."""

from __future__ import annotations

from tablewatch.ingest.partition import Router, table_ids


def line(table_id: str, n: int) -> bytes:
    return b'{"v":1,"table_id":"%s","seq":%d}' % (table_id.encode(), n)


def test_tables_are_dealt_in_the_order_they_first_appear() -> None:
    first = [line("T9", 1), line("T1", 1), line("T9", 2), line("T5", 1)]
    second = [line("T7", 1), line("T1", 2), line("T5", 2), b"not json", line("T3", 1)]
    kept: list[list[bytes]] = []
    for share in range(2):
        router = Router(2, share)
        kept.append([block[i] for block in (first, second) for i in router.select(block)])
    # T9, T1, T5, T7, T3 in order of first sight: shares 0, 1, 0, 1, 0; the bad line to 0
    assert kept[0] == [
        *(line("T9", 1), line("T9", 2), line("T5", 1)),
        *(line("T5", 2), b"not json", line("T3", 1)),
    ]
    assert kept[1] == [line("T1", 1), line("T7", 1), line("T1", 2)]
    assert len(kept[0]) + len(kept[1]) == len(first) + len(second)


def test_twelve_tables_of_equal_size_split_six_and_six() -> None:
    lines = [line(f"LIR-{t:02d}", n) for n in range(3) for t in range(12)]
    sizes = [len(Router(2, share).select(lines)) for share in range(2)]
    assert sizes == [18, 18]


def test_table_ids_of_any_json_layout() -> None:
    lines = [b'{ "table_id" : "A\\u0042" }', b'{"x":1}', b"{", line("C", 1)]
    assert table_ids(lines) == ["AB", None, None, "C"]


def test_table_ids_of_hostile_lines_are_none() -> None:
    deep = 100_000
    lines = [
        b"[" * deep + b"]" * deep,
        b'{"table_id":"A","x":' + b"[" * deep + b"]" * deep + b"}",
        b'{"x":' + b'{"y":' * deep + b"1" + b"}" * deep + b', "table_id":"A"}',
        b"\x00",
        line("B", 1),
    ]
    assert table_ids(lines) == [None, None, None, None, "B"]
    assert Router(2, 0).select(lines) == [0, 1, 2, 3, 4]  # B is share 0's: the first table
