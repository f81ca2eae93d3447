"""`tablewatch simulate`: where the floor goes, said once."""

from __future__ import annotations

import json
import time
from pathlib import Path

from click.testing import CliRunner

from tablewatch.commands.simulate import simulate
from tablewatch.rules.events import ts_to_ms


def test_follow_and_out_together_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "floor"
    result = CliRunner().invoke(simulate, ["--follow", "--out", str(out), "--rounds", "5"])
    assert result.exit_code == 2
    assert "--out writes the floor to files, --follow streams it: give one" in result.stderr
    assert result.stdout == ""
    assert not out.exists()


def test_the_help_says_so() -> None:
    text = " ".join(CliRunner().invoke(simulate, ["--help"]).output.split())
    assert "(not with --out)" in text
    assert "(not with --follow:" in text


def test_a_followed_floor_is_the_floor_written_with_out_stamped_when_sent(
    tmp_path: Path,
) -> None:
    args = ["--tables", "2", "--rounds", "12", "--seed", "5"]
    began = int(time.time() * 1000)
    followed = CliRunner().invoke(simulate, [*args, "--follow", "--speed", "1e9"])
    ended = int(time.time() * 1000)
    assert followed.exit_code == 0
    written = CliRunner().invoke(simulate, [*args, "--out", str(tmp_path)])
    assert written.exit_code == 0
    sent = [json.loads(line) for line in followed.stdout_bytes.splitlines()]
    floor = [json.loads(line) for line in (tmp_path / "events.jsonl").read_bytes().splitlines()]
    assert len(sent) == len(floor) > 100
    assert all(e["ts"].startswith("2026-11-29T") for e in floor)  # the file: the floor's date
    for event, original in zip(sent, floor, strict=True):
        assert {**event, "ts": original["ts"]} == original
        # followed: the time it was sent (1e9 times faster: a millisecond apart at most)
        assert began <= ts_to_ms(event["ts"]) <= ended + len(sent)
