"""`tablewatch audit` on hostile files: overlong lines, events out of the protocol's ranges,
deep nesting. Each bad line is reported (file:line, field, reason), the rest is audited
as without it, and the exit code is 2."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.commands.audit import audit
from tablewatch.ingest.files import MAX_LINE_BYTES, line_blocks
from tablewatch.rules.decode import OverlongLine

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CONFIG = str(EXAMPLES / "tables.yaml")
LINES = (EXAMPLES / "shift.jsonl").read_bytes().splitlines()


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(audit, list(args))
    return result.exit_code, result.stdout, result.stderr


def audited(path: Path, jobs: str = "1") -> tuple[int, list[str], str]:
    code, out, err = run(str(path), "--config", CONFIG, "--format", "json", "--jobs", jobs)
    return code, out.splitlines(), "".join(err.split())  # the console folds long lines


CLEAN_CODE, CLEAN_FINDINGS, _ = audited(EXAMPLES / "shift.jsonl")


def squeeze(text: str) -> str:
    return "".join(text.split())


def with_lines(tmp_path: Path, inserted: dict[int, bytes], end: bytes = b"\n") -> Path:
    """The example shift with lines inserted before the given (0-based) lines."""
    lines: list[bytes] = []
    for index, line in enumerate(LINES):
        if index in inserted:
            lines.append(inserted[index])
        lines.append(line)
    if len(LINES) in inserted:
        lines.append(inserted[len(LINES)])
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(b"\n".join(lines) + end)
    return path


def write_long(path: Path, size: int, before: bytes = b"", after: bytes = b"\n") -> None:
    with path.open("wb") as file:
        file.write(before + b'{"v":1,"event_id":"')
        block = b"x" * (1 << 20)
        left = size - len(b'{"v":1,"event_id":"') - 2
        while left > 0:
            file.write(block[: min(left, len(block))])
            left -= len(block)
        file.write(b'"}' + after)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_64_mb_line_is_rejected_quickly_and_the_rest_audited(tmp_path: Path, jobs: str) -> None:
    path = tmp_path / "long.jsonl"
    head = b"\n".join(LINES[:20]) + b"\n"
    write_long(path, 64 << 20, before=head, after=b"\n" + b"\n".join(LINES[20:]) + b"\n")
    started = time.monotonic()
    code, findings, err = audited(path, jobs)
    assert time.monotonic() - started < 10, "linear, not quadratic"
    assert code == 2
    assert findings == CLEAN_FINDINGS, "the other lines audited as without it"
    assert err.count("rejected:") == 1
    assert (
        squeeze(f"rejected: {path}:21: line of {64 << 20:,} bytes exceeds the limit of 1,048,576")
        in err
    )


@pytest.mark.parametrize(
    ("where", "end"),
    [(0, b"\n"), (12, b"\n"), (len(LINES), b""), (len(LINES), b"\n")],
)
def test_an_overlong_line_anywhere_is_one_rejection(tmp_path: Path, where: int, end: bytes) -> None:
    long_line = b'{"v":1,"reason":"' + b"r" * (3 << 20) + b'"}'
    path = with_lines(tmp_path, {where: long_line}, end)
    code, findings, err = audited(path)
    assert code == 2
    assert findings == CLEAN_FINDINGS
    assert squeeze(f"{path}:{where + 1}: line of {len(long_line):,} bytes exceeds") in err
    assert err.count("rejected:") == 1


def test_the_line_limit_is_exact(tmp_path: Path) -> None:
    event = LINES[0]
    fits = event + b" " * (MAX_LINE_BYTES - len(event))  # valid JSON, padded to the limit
    over = fits + b" "
    code, findings, err = audited(with_lines(tmp_path, {len(LINES): fits}))
    assert code == 1 and "rejected:" not in err  # a duplicate of line 1: ignored, not refused
    assert squeeze("1 duplicates ignored") in err
    assert findings == CLEAN_FINDINGS
    code, findings, err = audited(with_lines(tmp_path, {len(LINES): over}))
    assert code == 2
    assert findings == CLEAN_FINDINGS
    assert (
        squeeze(f"line of {MAX_LINE_BYTES + 1:,} bytes exceeds the limit of {MAX_LINE_BYTES:,}")
        in err
    )


def test_reading_an_overlong_line_takes_flat_memory(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    write_long(path, 32 << 20, after=b"\n" + LINES[0] + b"\n")
    tracemalloc.start()
    try:
        lines = [line for _, block in line_blocks(path) for line in block]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(lines[0], OverlongLine) and lines[0].size == 32 << 20
    assert lines[1] == LINES[0]
    assert peak < 4 * MAX_LINE_BYTES, f"peak {peak:,} bytes"


def test_the_help_states_the_line_limit() -> None:
    result = CliRunner().invoke(audit, ["--help"])
    assert f"{MAX_LINE_BYTES:,} bytes" in result.output.replace("\n", " ")


def meter(**fields: object) -> bytes:
    base: dict[str, object] = {
        "v": 1,
        "event_id": "h-1",
        "table_id": "LIR-07",
        "seq": 100_000,
        "ts": "2026-11-29T20:15:03.123Z",
        "type": "meter",
        "amount": 5,
    }
    return json.dumps({**base, **fields}).encode()


@pytest.mark.parametrize(
    ("line", "field", "words"),
    [
        (meter(seq=2**64), "seq", "below 2^53"),
        (meter(seq=0), "seq", "at least 1"),
        (meter(amount=2**63), "amount", "whole cents below 2^53"),
        (meter(ts="2200-01-01T00:00:00.000Z"), "ts", "year 2200 is outside 2000 to 2199"),
        (meter(table_id="LIR-07\u001b[2J"), "table_id", "not a printable character"),
        (meter(event_id="e" * 65), "event_id", "longer than 64 characters"),
        (b"[" * 100_000 + b"]" * 100_000, None, "Expected `object`, got `array`"),
        (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, None, "nested too deeply"),
    ],
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_events_out_of_range_are_reported_with_field_and_reason(
    tmp_path: Path, line: bytes, field: str | None, words: str, jobs: str
) -> None:
    path = with_lines(tmp_path, {5: line})
    code, findings, err = audited(path, jobs)
    assert code == 2
    assert findings == CLEAN_FINDINGS, "nothing of the bad line judged"
    assert err.count("rejected:") == 1
    assert squeeze(f"{path}:6") in err
    if field is not None:
        assert squeeze(f"field `{field}`") in err
    assert squeeze(words) in err
    assert "\x1b" not in err, "control characters are printed escaped"
