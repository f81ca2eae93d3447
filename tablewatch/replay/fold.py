"""Folding a source's events through the :class:`~tablewatch.rules.audit.Auditor`.

Every source (files, the store, Kafka) yields *runs*: lists of decoded events in
each table's order, with a rejection (:class:`~tablewatch.rules.decode.EventRejected`)
between two runs where the decoder refused an item. :func:`fold` feeds them to the
auditor as ``tablewatch audit`` always has (``Auditor.feed_many``), then closes the
rounds still open at the end of the input (``Auditor.finish``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tablewatch.rules.audit import Auditor, RoundOrFinding
from tablewatch.rules.decode import EventRejected
from tablewatch.rules.events import AnyEvent

Run = list[AnyEvent] | EventRejected


def fold(auditor: Auditor, runs: Iterable[Run]) -> Iterator[RoundOrFinding | EventRejected]:
    """Every outcome (judged round, or finding outside a round) and rejection, in order."""
    for run in runs:
        if isinstance(run, EventRejected):
            yield run
            continue
        for _, outcome in auditor.feed_many(run):
            yield outcome
    yield from auditor.finish()
