"""A judged round's findings that share a key (check, seat, bet, evidence) are each stored:
two seats dealt no card are two ROUND_NOT_VOIDED findings with no seat and no evidence,
and the store, which keeps one row an id, kept only one of them."""

from __future__ import annotations

from clickhouse_connect.driver.client import Client

from tablewatch.store import queries
from tablewatch.store.batch import StoreBatch
from tablewatch.store.rows import finding_id, round_finding_ids, round_rows
from tablewatch.store.writer import StoreWriter
from tests.store.helpers import JUDGED_AT, round_cut_before_the_cards


def test_findings_with_one_key_get_ids_of_their_own_the_first_as_before() -> None:
    result = round_cut_before_the_cards()
    misdeals = [f for f in result.findings if f.check == "ROUND_NOT_VOIDED"]
    assert len(misdeals) >= 3  # at least two seats and the dealer
    assert len({f.message for f in misdeals}) == len(misdeals)
    start = result.start_event_id
    keyed = {finding_id(f, start_event_id=start) for f in misdeals}
    assert len(keyed) == 1  # one key for all of them: what collapsed them in the store
    ids = round_finding_ids(result)
    assert len(set(ids)) == len(ids) == len(result.findings)
    first = result.findings.index(misdeals[0])
    assert ids[first] == keyed.pop()  # the first keeps the id it had
    others = [f for f in result.findings if f.check != "ROUND_NOT_VOIDED"]
    assert [ids[result.findings.index(f)] for f in others] == [
        finding_id(f, start_event_id=start) for f in others
    ]
    assert round_finding_ids(round_cut_before_the_cards()) == ids  # judged again: the same ids
    assert [row[0] for row in round_rows(result, JUDGED_AT).finding_rows] == ids


def test_each_of_them_is_stored_and_read_back(store: Client) -> None:
    result = round_cut_before_the_cards()
    batch = StoreBatch()
    batch.add_outcome(result, JUDGED_AT)
    StoreWriter(store).insert_batch(batch)
    store.command("OPTIMIZE TABLE findings FINAL")  # the engine's merge keeps one row an id
    stored = queries.findings(store, table_id=result.table_id)
    assert sorted(f.message for f in stored) == sorted(f.message for f in result.findings)
    assert sorted(f.finding_id for f in stored) == sorted(round_finding_ids(result))
