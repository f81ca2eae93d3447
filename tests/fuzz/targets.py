"""The fuzz targets, shared by the test suite (``tests/fuzz/test_*.py``, a few hundred inputs
each) and the long run outside it (``benchmarks/fuzz.py``): each is a Hypothesis strategy
and the check every input it draws must pass."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tests.fuzz import decoder
from tests.fuzz.tally import Tally

SUITE_EXAMPLES = 300  # per target in the test suite: a few seconds each
# of the long run's inputs; the decoder's targets have 64
HTTP_SHARE, RAW_SHARE, QUERY_SHARE, ALERTS_SHARE = 20, 5, 15, 10


@dataclass(frozen=True)
class Target:
    name: str
    strategy: st.SearchStrategy[Any]
    check: Callable[[Any, Tally], None]
    share: int  # its weight in the long run's inputs


def settings_for(examples: int, *, derandomize: bool) -> settings:
    """Deterministic in the suite (``derandomize``); no deadline (a slow machine is not a
    failure); no example database (nothing written beside the tests)."""
    return settings(
        max_examples=examples,
        derandomize=derandomize,
        deadline=None,
        database=None,
        print_blob=False,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.large_base_example,
        ],
    )


def run(target: Target, tally: Tally, config: settings, fixed_seed: int | None = None) -> None:
    """Draw ``config.max_examples`` inputs and check each; raises on the first failure
    (after Hypothesis shrank it)."""

    @config
    @given(target.strategy)
    def fuzz(value: Any) -> None:
        target.check(value, tally)

    if fixed_seed is not None:
        fuzz = seed(fixed_seed)(fuzz)
    fuzz()


def decoder_targets() -> list[Target]:
    return [
        Target("decode_event: any bytes", decoder.any_bytes, decoder.check_event, 8),
        Target("decode_event: any text (str)", decoder.any_texts, decoder.check_event, 3),
        Target("decode_event: mutated bytes", decoder.mutated_bytes(), decoder.check_event, 12),
        Target("decode_event: mutated fields", decoder.mutated_objects(), decoder.check_event, 14),
        Target(
            "decode_event: generated JSON", decoder.generated_objects(), decoder.check_event, 10
        ),
        Target("decode_event: same event", decoder.equivalent_texts(), decoder.check_equivalent, 5),
        Target("decode_lines vs decode_event", decoder.line_lists, decoder.check_lines, 8),
        Target(
            "decode_whole_lines vs decode_lines",
            decoder.whole_line_lists,
            decoder.check_whole_lines,
            4,
        ),
    ]


@contextmanager
def http_targets() -> Iterator[list[Target]]:
    from tests.fuzz.ingest_http import (
        SHORT_BODY_TIMEOUT,
        HttpHarness,
        check_post,
        check_raw,
        posts,
        raw_requests,
    )

    harness = HttpHarness()
    framing = HttpHarness(serving=SHORT_BODY_TIMEOUT)
    try:
        yield [
            Target(
                "POST /events",
                posts(),
                lambda post, tally: check_post(post, harness, tally),
                HTTP_SHARE,
            ),
            Target(
                "POST /events: raw requests",
                raw_requests(),
                lambda request, tally: check_raw(request, framing, tally),
                RAW_SHARE,
            ),
        ]
    finally:
        harness.close()
        framing.close()


@contextmanager
def query_targets() -> Iterator[list[Target]]:
    from tests.fuzz.store_sql import SqlHarness, check_query, statements

    harness = SqlHarness()
    try:
        yield [
            Target(
                "ReadOnlyReader.run",
                statements(harness.paths),
                lambda sql, tally: check_query(sql, harness, tally),
                QUERY_SHARE,
            )
        ]
        harness.check_untouched(full=True)
    finally:
        harness.close()


@contextmanager
def alerts_targets() -> Iterator[list[Target]]:
    from tests.fuzz.alerts_http import alerts_requests_target, check_request

    harness, requests = alerts_requests_target()
    try:
        yield [
            Target(
                "alerter and API: ack, webhook, listing",
                requests,
                lambda request, tally: check_request(request, harness, tally),
                ALERTS_SHARE,
            )
        ]
    finally:
        harness.close()
