"""The duplicate window: bounded, oldest forgotten first."""

from __future__ import annotations

import pytest

from tablewatch.ingest.batch import SeenWindow


def test_window_forgets_the_oldest_first() -> None:
    window = SeenWindow(3)
    window.add(["a", "b", "c"])
    assert all(i in window for i in "abc") and len(window) == 3
    window.add(["d"])
    assert "a" not in window and all(i in window for i in "bcd")
    window.add(["b", "e"])  # b is known: not moved, not counted twice
    assert len(window) == 3
    assert "b" not in window and all(i in window for i in "cde")


def test_window_capacity_is_positive() -> None:
    with pytest.raises(ValueError):
        SeenWindow(0)


def test_window_stays_bounded_under_many_ids() -> None:
    window = SeenWindow(1000)
    window.add(f"id-{i}" for i in range(100_000))
    assert len(window) == 1000
    assert "id-98999" not in window and "id-99000" in window and "id-99999" in window
