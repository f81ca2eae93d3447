"""A table's saved state carries its last rounds' ids: a round_id given again after a restart
is still found; a state saved before they were carried restores with none."""

from __future__ import annotations

import json

from tablewatch.processors import state_codec
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.events import ms_to_ts
from tablewatch.rules.table import TableState
from tablewatch.script import TableScript
from tests.scenarios import configs, lir_round, lir_table, wire


def _played(rounds: int) -> tuple[TableState, TableScript]:
    t = lir_table()
    for n in range(1, rounds + 1):
        lir_round(t, f"R-{n}")
    auditor = Auditor(configs())
    for event in wire([t]):
        auditor.feed(event)
    table = auditor.table("LIR-1")
    assert table is not None and table.open_round is None
    return table, t


def _resumed(data: bytes, before: TableScript, round_id: str) -> list[str]:
    """The checks raised by a round ``round_id`` played on the table restored from ``data``."""
    config = configs()
    restored, offset = state_codec.restore(data, config["LIR-1"])
    assert offset == 77
    auditor = Auditor(config, restore=lambda table_id, _: restored)
    start = ms_to_ts(before.now_ms + 10_000)
    t = TableScript("LIR-1", start=start, first_seq=before.seq, id_prefix="after")
    lir_round(t, round_id)
    return [f.check for f in findings_of(auditor.feed_all(wire([t])))]


def test_the_round_ids_survive_a_snapshot() -> None:
    table, script = _played(5)
    data = state_codec.snapshot(table, 77)
    restored, _ = state_codec.restore(data, configs()["LIR-1"])
    assert restored.recent_rounds(10) == table.recent_rounds(10)
    assert [r for r, _ in restored.recent_rounds(10)] == ["R-1", "R-2", "R-3", "R-4", "R-5"]
    assert _resumed(data, script, "R-3") == ["ROUND_ID_REUSED"]
    assert _resumed(data, script, "R-6") == []


def test_only_the_last_rounds_are_carried() -> None:
    kept = state_codec.ROUNDS_KEPT
    table, script = _played(kept + 3)
    data = state_codec.snapshot(table, 77)
    restored, _ = state_codec.restore(data, configs()["LIR-1"])
    assert restored.recent_rounds(kept + 10) == table.recent_rounds(kept)
    assert _resumed(data, script, f"R-{kept + 3}") == ["ROUND_ID_REUSED"]
    assert _resumed(data, script, "R-1") == []  # its first use was not carried: not found


def test_a_state_saved_before_the_round_ids_were_carried_restores() -> None:
    table, script = _played(3)
    saved = json.loads(state_codec.snapshot(table, 77))
    del saved["rounds"]  # what this code wrote before
    old = json.dumps(saved).encode()
    restored, offset = state_codec.restore(old, configs()["LIR-1"])
    assert offset == 77
    assert restored.recent_rounds(10) == []
    assert restored.last_seq == table.last_seq
    assert restored.recent_ids(256) == table.recent_ids(256)
    assert list(restored.closed_rounds()) == ["R-1", "R-2", "R-3"]
    assert _resumed(old, script, "R-2") == []  # closed before, but no round id remembered
