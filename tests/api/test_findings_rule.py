"""The findings list shows findings_v's rows: a round judged again shows only its latest
judgement's findings."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import pytest

from tablewatch.api import reads
from tablewatch.api.filters import Filters
from tablewatch.api.reads import list_findings
from tablewatch.api.sources import open_product_reader
from tablewatch.rules.round_result import RoundResult
from tablewatch.store.batch import StoreBatch
from tablewatch.store.client import connect
from tablewatch.store.read_only import Answer
from tablewatch.store.rows import round_rows
from tablewatch.store.writer import StoreWriter
from tests.api.store import fill_store
from tests.store.helpers import JUDGED_AT


def judge_clean_again(dsn: str, cleared: RoundResult) -> None:
    """``cleared`` judged again a minute later and found clean: only its round row is new."""
    client = connect(dsn)
    try:
        again = StoreBatch()
        again.rounds.append(round_rows(cleared, JUDGED_AT + 60_000).round_row)
        StoreWriter(client).insert_batch(again)
    finally:
        client.close()


def test_a_round_judged_again_shows_its_latest_findings_only(tmp_path: Path) -> None:
    filled = fill_store(tmp_path / "store", tables=2, rounds=60, seed=7)
    judged = [r for r in filled.audited.rounds if r.findings]
    assert len(judged) >= 2
    cleared, kept = judged[0], judged[1]
    judge_clean_again(filled.dsn, cleared)
    reader = open_product_reader(filled.dsn)
    try:
        for f in (Filters(limit=1000), Filters(table=cleared.table_id, limit=1000),
                  Filters(check=cleared.findings[0].check, limit=1000)):  # fmt: skip
            own = list_findings(reader, f)
            rounds = {(x.table_id, x.round_id) for x in own.items}
            assert (cleared.table_id, cleared.round_id) not in rounds
            if f.table is None and f.check is None:
                assert (kept.table_id, kept.round_id) in rounds
                expected = len(filled.audited.findings) - len(cleared.findings)
                assert len(own.items) == expected
                # paged 3 at a time (the cleared round's findings dropped inside pages): the
                # same findings in the same order
                paged, cursor = [], None
                while True:
                    page = list_findings(reader, Filters(limit=3, cursor=cursor))
                    assert len(page.items) == 3 or page.next_cursor is None
                    paged += page.items
                    if page.next_cursor is None:
                        break
                    cursor = page.next_cursor
                assert paged == own.items
    finally:
        reader.close()


@pytest.mark.parametrize(("candidates", "keys"), [(1, 4_000), (2, 4_000), (5, 1), (128, 90)])
def test_the_list_reads_few_candidates_at_a_time_and_gives_the_view_s_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, candidates: int, keys: int
) -> None:
    """The findings read a few at a time (the round judged again falling inside and across
    those reads), their rounds' judgements looked up a few keys a statement, give
    findings_v's rows in findings_v's order, every page."""
    filled = fill_store(tmp_path / "store", tables=2, rounds=60, seed=7)
    cleared = next(r for r in filled.audited.rounds if r.findings)
    judge_clean_again(filled.dsn, cleared)
    monkeypatch.setattr(reads, "CANDIDATES", candidates)
    monkeypatch.setattr(reads, "KEYS_PER_STATEMENT", keys)
    reader = open_product_reader(filled.dsn)
    try:
        view = [
            str(r[0])
            for r in reader.run(
                "SELECT finding_id FROM findings_v "
                "ORDER BY ifNull(ts, judged_at) DESC, finding_id DESC"
            ).rows
        ]
        assert len(view) == len(filled.audited.findings) - len(cleared.findings)
        for limit in (1, 4, 1000):
            paged, cursor = [], None
            while True:
                page = list_findings(reader, Filters(limit=limit, cursor=cursor))
                assert len(page.items) == limit or page.next_cursor is None
                paged += [item.finding_id for item in page.items]
                if page.next_cursor is None:
                    break
                cursor = page.next_cursor
            assert paged == view
    finally:
        reader.close()


def test_the_judgements_of_a_large_page_go_in_statements_a_worker_s_url_can_hold() -> None:
    """1,000 rounds with long, non-ASCII round ids: each statement, URL-encoded as the
    worker's ``GET /query?sql=`` carries it, stays under aiohttp's 8,190-byte request line,
    and every round is asked for once."""
    statements: list[str] = []

    class Recording:
        def run(self, sql: str) -> Answer:
            statements.append(sql)
            return Answer(["table_id", "round_id", "start_event_id", "judged_ms"], [])

    rounds = {(f"LIR-{i % 24:02d}", f"R-ronda-ñ-{i:06d}-" + "ü" * 20) for i in range(1000)}
    assert reads._latest_judgements(Recording(), rounds) == {}
    assert len(statements) > 1
    for sql in statements:
        assert len("GET /query?" + urlencode({"sql": sql}) + " HTTP/1.1") < 8190
    asked = "".join(statements)
    assert all(asked.count(f"'{r}'") == 1 for _, r in rounds)
