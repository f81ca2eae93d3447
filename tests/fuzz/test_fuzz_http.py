"""``POST /events``'s fuzzers, in process with a memory sink (``tests/fuzz/ingest_http.py``)."""

from __future__ import annotations

import pytest

from tests.fuzz.tally import Tally
from tests.fuzz.targets import SUITE_EXAMPLES, http_targets, run, settings_for

pytestmark = pytest.mark.fuzz


def _fuzzed(name: str) -> Tally:
    with http_targets() as targets:
        (target,) = [t for t in targets if t.name == name]
        tally = Tally(target.name)
        run(target, tally, settings_for(SUITE_EXAMPLES, derandomize=True))
    assert tally.inputs >= SUITE_EXAMPLES
    return tally


def test_post_events_never_answers_500_and_accounts_for_every_item() -> None:
    tally = _fuzzed("POST /events")
    assert tally.outcomes["own 200"] and tally.outcomes["plain 200"]


def test_requests_framed_any_way_are_never_answered_500() -> None:
    tally = _fuzzed("POST /events: raw requests")
    assert any(outcome.endswith(" 200") for outcome in tally.outcomes)
