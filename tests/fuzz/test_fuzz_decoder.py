"""The decoder's fuzzers, a few hundred inputs each (``tests/fuzz/decoder.py``)."""

from __future__ import annotations

import pytest

from tests.fuzz.tally import Tally
from tests.fuzz.targets import SUITE_EXAMPLES, Target, decoder_targets, run, settings_for

pytestmark = pytest.mark.fuzz

TARGETS = decoder_targets()


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_the_decoder_rejects_with_reasons_and_never_raises(target: Target) -> None:
    tally = Tally(target.name)
    run(target, tally, settings_for(SUITE_EXAMPLES, derandomize=True))
    assert tally.inputs >= SUITE_EXAMPLES
