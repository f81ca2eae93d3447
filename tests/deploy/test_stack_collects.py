"""The stack test (behind the ``docker`` marker, outside the default suite) is collected:
it imports, and ``-m docker`` selects it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_docker_marked_stack_test_collects() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "docker",
         "-p", "no:cacheprovider", "tests/deploy/test_stack.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "tests/deploy/test_stack.py::test_a_floor_through_the_stack" in result.stdout


def test_the_default_suite_leaves_it_out() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "tests/deploy/test_stack.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "test_a_floor_through_the_stack" not in result.stdout, result.stdout
    assert "1 deselected" in result.stdout, result.stdout
