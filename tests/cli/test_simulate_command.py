"""`tablewatch simulate`: where the floor goes, said once."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tablewatch.commands.simulate import simulate


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


def test_a_followed_floor_is_the_floor_written_with_out(tmp_path: Path) -> None:
    args = ["--tables", "2", "--rounds", "12", "--seed", "5"]
    followed = CliRunner().invoke(simulate, [*args, "--follow", "--speed", "1e9"])
    assert followed.exit_code == 0
    written = CliRunner().invoke(simulate, [*args, "--out", str(tmp_path)])
    assert written.exit_code == 0
    assert followed.stdout_bytes == (tmp_path / "events.jsonl").read_bytes()
