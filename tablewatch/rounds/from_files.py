"""Rounds of JSON Lines files, reconstructed without a store.

The table's events are audited in order as ``tablewatch audit`` audits them (the same
:class:`~tablewatch.rules.audit.Auditor`, so its findings are the audit's, table-level
ones included); each judged round of the ``round_id`` asked for is reconstructed with its
own events and the table events between its first and last (:func:`rounds_in_events`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tablewatch.rounds.reconstruct import report_of
from tablewatch.rounds.report import RoundNotFound, RoundReport, UnknownTable
from tablewatch.rules.audit import Auditor
from tablewatch.rules.events import ROUND_EVENT_TYPES, AnyEvent
from tablewatch.rules.judge import RoundResult
from tablewatch.rules.table_config import TableConfig


def rounds_in_events(
    events: Iterable[AnyEvent],
    configs: Mapping[str, TableConfig],
    table_id: str,
    round_id: str,
) -> list[RoundReport]:
    """Every round ``round_id`` of ``table_id`` in ``events`` (any tables, each in its seq
    order), in the order they began; raises :class:`UnknownTable` or :class:`RoundNotFound`."""
    config = configs.get(table_id)
    if config is None:
        raise UnknownTable(f"table {table_id!r} is not in the configuration given")
    own: list[AnyEvent] = []
    seen: set[str] = set()
    for event in events:
        if event.table_id == table_id and event.event_id not in seen:  # a duplicate: once
            seen.add(event.event_id)
            own.append(event)
    auditor = Auditor({table_id: config})
    results = [
        outcome
        for outcome in auditor.feed_all(own)
        if isinstance(outcome, RoundResult) and outcome.round_id == round_id
    ]
    if not results:
        raise RoundNotFound(f"table {table_id} has no round {round_id!r} in the events given")
    position = {event.event_id: index for index, event in enumerate(own)}
    begins = [position[r.start_event_id] for r in results]
    reports = []
    for number, result in enumerate(results):
        begin = begins[number]
        stop = begins[number + 1] if number + 1 < len(begins) else len(own)
        part = own[begin:stop]
        last = max(
            i for i, e in enumerate(part) if type(e) in ROUND_EVENT_TYPES and _round(e) == round_id
        )
        timeline = [
            e for e in part[: last + 1] if type(e) not in ROUND_EVENT_TYPES or _round(e) == round_id
        ]
        others = [r.start_event_id for r in results if r is not result]
        reports.append(report_of(result, timeline, config, same_round_id=others))
    return reports


def _round(event: AnyEvent) -> str:
    return str(getattr(event, "round_id", ""))
