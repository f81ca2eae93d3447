"""The fuzzers' marker: ``pytest -m fuzz`` runs only them, ``pytest -m "not fuzz"`` all but them."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "fuzz: Hypothesis fuzzers of the decoder, POST /events and the query reader"
    )
