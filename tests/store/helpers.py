"""Judged rounds and floors for the store tests."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from clickhouse_connect.driver.client import Client

from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import decode_event, encode_event
from tablewatch.rules.events import AnyEvent, CardDealt, RoundStart
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult
from tablewatch.sim.floor import Floor
from tablewatch.store.batch import StoreBatch
from tablewatch.store.rows import SETTLEMENT_COLUMNS, stored_finding_ids
from tablewatch.store.writer import StoreWriter
from tests.scenarios import configs

JUDGED_AT = 1_796_000_000_000  # 2026-12-10T00:53:20Z
INGESTED_AT = 1_796_000_000_000


@dataclass
class Audited:
    """Events as received (raw bytes, decoded), the outcomes of their audit, in one batch."""

    raw: list[tuple[bytes, AnyEvent]] = field(default_factory=list)
    outcomes: list[RoundResult | Finding] = field(default_factory=list)

    @property
    def rounds(self) -> list[RoundResult]:
        return [o for o in self.outcomes if isinstance(o, RoundResult)]

    @property
    def findings(self) -> list[Finding]:
        return list(findings_of(self.outcomes))

    def finding_ids(self, table_id: str | None = None) -> set[str]:
        """The ids of every finding as stored (of one table's outcomes)."""
        return ids(o for o in self.outcomes if table_id in (None, o.table_id))

    def batch(self, judged_at_ms: int = JUDGED_AT, ingested_at_ms: int = INGESTED_AT) -> StoreBatch:
        batch = StoreBatch()
        for offset, (raw, event) in enumerate(self.raw):
            batch.add_event(raw, event, 0, offset, ingested_at_ms)
        batch.add_outcomes(self.outcomes, judged_at_ms)
        return batch


def audit_events(events: Iterable[AnyEvent], auditor: Auditor) -> Audited:
    out = Audited()
    for event in events:
        raw = encode_event(event)
        decoded = decode_event(raw)
        out.raw.append((raw, decoded))
        out.outcomes.extend(auditor.feed(decoded))
    out.outcomes.extend(auditor.finish())
    return out


def audit_scripted(events: Iterable[AnyEvent]) -> Audited:
    return audit_events(events, Auditor(configs()))


def audit_floor(floor: Floor) -> Audited:
    return audit_events(floor.events(), Auditor(parse_config(floor.config)))


def ids(outcomes: Iterable[RoundResult | Finding]) -> set[str]:
    """The stored ids of the outcomes' findings (a judged round's carry its start_event_id)."""
    return stored_finding_ids(outcomes)


def round_cut_before_the_cards() -> RoundResult:
    """A table's first round cut after its wagers, before any card: judged at the end of
    the input, every seat and the dealer dealt nothing."""
    floor = Floor(tables=1, rounds=3, seed=4, error_rate=0.0)
    events = list(floor.events())
    start = next(i for i, e in enumerate(events) if isinstance(e, RoundStart))
    first_card = next(i for i, e in enumerate(events) if isinstance(e, CardDealt) and i > start)
    auditor = Auditor(parse_config(floor.config))
    outcomes = [o for _, o in auditor.feed_many(events[:first_card])] + auditor.finish()
    (result,) = [o for o in outcomes if isinstance(o, RoundResult)]
    return result


def insert_before_game_column(client: Client, batch: StoreBatch) -> None:
    """Write ``batch`` as the writer did before migration 0018: settlement lines without
    their round's ``game`` (the last column of ``SETTLEMENT_COLUMNS``)."""
    writer = StoreWriter(client)
    writer.insert(events=batch.events, rounds=batch.rounds, findings=batch.findings)
    if batch.settlements:
        client.insert(
            "settlements",
            [list(row[:-1]) for row in batch.settlements],
            column_names=list(SETTLEMENT_COLUMNS[:-1]),
        )
