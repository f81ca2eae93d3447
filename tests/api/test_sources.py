"""The API's row sources: the product reader's shape cache, and the pool's answers when
every reader is busy."""

from __future__ import annotations

import pytest

from tablewatch.api.sources import (
    ProductReader,
    ReaderPool,
    SourceBusy,
    SourceFailed,
    open_product_reader,
    statement_shape,
)
from tablewatch.store.read_only import QueryRefused
from tests.api.store import FilledStore


def test_the_shape_of_a_statement_hides_only_literal_values() -> None:
    sql = (
        "SELECT toUnixTimestamp64Milli(ts) FROM rounds_v WHERE table_id = 'L\\'x' "
        "AND round_id = 'it''s' AND seats > 12 LIMIT 101"
    )
    assert statement_shape(sql) == (
        "SELECT toUnixTimestamp64Milli(ts) FROM rounds_v WHERE table_id = ? "
        "AND round_id = ? AND seats > ? LIMIT ?"
    )
    # a value that broke out of its literal is part of the shape, and so is a heredoc
    assert "file(" in statement_shape("SELECT 1 WHERE a = 'x' OR file('/etc/passwd') = ''")
    assert "$$" in statement_shape("SELECT $$x$$")


def test_a_statement_of_a_checked_shape_skips_the_engine_check_and_no_other(
    filled: FilledStore,
) -> None:
    reader = open_product_reader(filled.dsn)
    try:
        assert isinstance(reader, ProductReader)
        first = reader.run("SELECT count() FROM rounds_v WHERE table_id = 'LIR-01'")
        assert reader.checks_skipped == 0
        again = reader.run("SELECT count() FROM rounds_v WHERE table_id = 'FCP-02'")
        assert reader.checks_skipped == 1
        expected = {
            t: sum(r.table_id == t for r in filled.audited.rounds) for t in ("LIR-01", "FCP-02")
        }
        assert (first.rows[0][0], again.rows[0][0]) == (expected["LIR-01"], expected["FCP-02"])
        with pytest.raises(QueryRefused, match="file"):
            reader.run(
                "SELECT count() FROM rounds_v WHERE table_id = 'x' OR file('/etc/passwd') != ''"
            )
        with pytest.raises(QueryRefused, match="not readable"):
            reader.run("SELECT count() FROM system.tables WHERE name = 'x'")
        assert reader.checks_skipped == 1
    finally:
        reader.close()


def test_a_busy_pool_answers_busy_and_a_refused_statement_is_a_failure(
    filled: FilledStore,
) -> None:
    pool = ReaderPool(lambda: open_product_reader(filled.dsn), size=1, wait_s=0.2)
    try:
        with pytest.raises(SourceFailed, match="refused"):
            pool.run("DROP TABLE rounds")
        slot = pool._free.get()  # the one reader, taken by another caller
        try:
            with pytest.raises(SourceBusy) as busy:
                pool.run("SELECT 1")
            assert busy.value.retry_after_s >= 1
        finally:
            pool._free.put(slot)
        assert [list(row) for row in pool.run("SELECT 1").rows] == [[1]]
    finally:
        pool.close()
