"""The alerter's acknowledgement, webhook and listing, and the API's acknowledgement
route, fuzzed (``tests/fuzz/alerts_http.py``)."""

from __future__ import annotations

import pytest

from tests.fuzz.tally import Tally
from tests.fuzz.targets import SUITE_EXAMPLES, alerts_targets, run, settings_for

pytestmark = pytest.mark.fuzz


def test_alerts_routes_never_answer_500_refuse_strangers_and_write_nothing_refused() -> None:
    with alerts_targets() as targets:
        (target,) = targets
        tally = Tally(target.name)
        run(target, tally, settings_for(SUITE_EXAMPLES, derandomize=True))
    assert tally.inputs >= SUITE_EXAMPLES
    outcomes = tally.outcomes
    assert outcomes["ack 401"] and outcomes["ack 403"] and outcomes["notified 401"]
    assert outcomes["notified 403"] and outcomes["api ack 401"]
    assert any(o.endswith(" 200") and o.startswith(("ack", "api ack")) for o in outcomes)
    assert outcomes["notified 400"]
