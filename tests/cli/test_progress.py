"""Long commands show progress on a terminal (stderr), and nothing when it is not one."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tablewatch import native
from tablewatch.commands import native as native_command

EDGE = ["edge", "four_card_poker", "ante", "--samples", "20000", "--train-samples", "20000"]


def _stderr_on_a_terminal(args: list[str]) -> tuple[int, bytes, bytes]:
    """``tablewatch ARGS`` with stderr on a pseudo-terminal: (exit, stdout, what it showed)."""
    leader, follower = os.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "tablewatch.cli", *args],
        stdout=subprocess.PIPE,
        stderr=follower,
    ) as process:
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end closed: the command ended
                break
            if not chunk:
                break
            shown += chunk
        assert process.stdout is not None
        out = process.stdout.read()
    os.close(leader)
    return process.wait(), out, shown


def test_edge_monte_carlo_shows_its_progress_on_a_terminal() -> None:
    code, out, shown = _stderr_on_a_terminal(EDGE)
    assert code == 0
    assert b"four_card_poker ante" in out
    assert b"train" in shown
    assert b"evaluate" in shown
    assert b"20,000/20,000 deals" in shown


def test_edge_shows_nothing_when_stderr_is_not_a_terminal() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tablewatch.cli", *EDGE], capture_output=True, check=True
    )
    assert done.stderr == b""
    assert b"house edge" in done.stdout


FAKE_MYPYC = """\
import sys
print("tablewatch/rules/round_view.py:19: warning: Treating generator comprehension as list")
print("running build_ext")
print("building '6176c762e19dbfff9b7f__mypyc' extension")
print("gcc -c build/__native.c")
for name in sys.argv[1:]:
    print(f"building '{name}' extension")
"""


def test_native_build_phases_follow_mypyc(tmp_path: Path) -> None:
    fake = tmp_path / "mypyc.py"
    fake.write_text(FAKE_MYPYC)
    seen: list[tuple[str, int, int]] = []
    modules = ["tablewatch.rules.audit", "tablewatch.rules.checks.catalog"]
    command = [sys.executable, str(fake), *modules]
    native.run_mypyc(command, tmp_path, len(modules), lambda *step: seen.append(step))
    assert seen == [
        ("type checking, writing C", 0, 4),
        ("compiling the C code (gcc)", 1, 4),
        ("module audit", 2, 4),
        ("module checks.catalog", 3, 4),
        ("done", 4, 4),
    ]


def test_a_failed_mypyc_shows_its_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = tmp_path / "mypyc.py"
    fake.write_text("print('tablewatch/rules/cards.py:3: error: Name \"x\" is not defined')\n"
                    "raise SystemExit(1)\n")  # fmt: skip
    with pytest.raises(subprocess.CalledProcessError):
        native.run_mypyc([sys.executable, str(fake)], tmp_path, 1, None)
    assert 'cards.py:3: error: Name "x" is not defined' in capsys.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_native_build_bar_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with native_command._progress() as phase:
        assert phase is None
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with native_command._progress() as phase:
        assert phase is not None
        phase("compiling the C code (gcc)", 1, 4)
    assert "mypyc: compiling the C code (gcc)" in terminal.getvalue()
