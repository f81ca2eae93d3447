"""The query reader's fuzzer on an embedded store with canaries (``tests/fuzz/store_sql.py``)."""

from __future__ import annotations

import pytest

from tests.fuzz.tally import Tally
from tests.fuzz.targets import query_targets, run, settings_for

pytestmark = pytest.mark.fuzz

QUERY_EXAMPLES = 200  # each runs three statements on the engine: about 5 s in all


def test_callers_sql_never_reads_or_writes_outside_the_product() -> None:
    with query_targets() as targets:
        for target in targets:
            tally = Tally(target.name)
            run(target, tally, settings_for(QUERY_EXAMPLES, derandomize=True))
            assert tally.inputs >= QUERY_EXAMPLES
            assert tally.outcomes["answered"], "no statement was answered"
