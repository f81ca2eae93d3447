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


def test_a_hole_carder_sits_at_his_table_with_his_player_id(tmp_path: Path) -> None:
    args = ["--tables", "2", "--rounds", "20", "--seed", "5", "--games", "three_card_poker"]
    result = CliRunner().invoke(
        simulate, [*args, "--hole-carder", "1:4:0.5:PC-9", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    carried = {(e["table_id"], e["seat"]) for e in events if e.get("player_id") == "PC-9"}
    assert carried == {("TCP-02", 4)}
    wagers = [e for e in events if e["type"] == "wager" and e["table_id"] == "TCP-02"]
    rounds = {e["round_id"] for e in wagers}
    assert {e["round_id"] for e in wagers if e["seat"] == 4} == rounds  # every round


def test_a_bad_hole_carder_exits_2_naming_it(tmp_path: Path) -> None:
    for text, reason in (
        ("7:1:0.5", "hole-carder: table 7 is not 0 to 1"),
        ("0:9:0.5", "hole-carder '0:9:0.5': seat 9 is not 1 to 7"),
        ("0:1:half", "hole-carder '0:1:half': TABLE and SEAT are whole numbers"),
    ):
        result = CliRunner().invoke(
            simulate, ["--tables", "2", "--hole-carder", text, "--out", str(tmp_path)]
        )
        assert result.exit_code == 2
        assert reason in " ".join(result.stderr.split())
