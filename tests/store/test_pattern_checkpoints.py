"""The patterns companion's steps in the store: findings, then the checkpoint; the latest
revision is read back; a step stored again keeps one row per finding."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from clickhouse_connect.driver.client import Client

from tablewatch.cli import main
from tablewatch.patterns.companion_loop import Step
from tablewatch.patterns.companion_store import finding_messages, load_checkpoint, write_step
from tablewatch.patterns.finding import PatternFinding

FINDING = PatternFinding(
    check="ADVANTAGE_PLAY_SUSPECTED",
    unit="PC-1",
    table_id="TCP-01",
    message="PC-1: decisions track the dealer's first card (40 decisions)",
    statistic_name="log-likelihood ratio",
    statistic=10.25,
    threshold=9.9,
    false_alarm_rate="at most 1 honest unit in 20,000",
    evidence=(("TCP-01", "R-12"), ("TCP-01", "R-3")),
    first_ts="2026-11-29T18:00:00.000Z",
    last_ts="2026-11-29T19:00:00.000Z",
    seat=3,
)


def test_a_step_stores_its_findings_and_its_checkpoint_read_back_by_revision(
    store: Client,
) -> None:
    assert load_checkpoint(store, "table-events") is None
    write_step(
        store, "table-events", 1, Step([FINDING], b"\x00first\xff", 10, 0, 0), 1_800_000_000_000
    )
    write_step(store, "table-events", 2, Step([], b"\x00second\xff", 25, 1, 0), 1_800_000_005_000)
    write_step(store, "other-events", 1, Step([], b"other", 3, 0, 0), 1_800_000_005_000)
    saved = load_checkpoint(store, "table-events")
    assert saved is not None
    assert (saved.revision, saved.state, saved.rounds, saved.late) == (2, b"\x00second\xff", 25, 1)
    # the same step stored again (a companion stopped before its checkpoint): one finding
    stored = write_step(
        store, "table-events", 2, Step([FINDING], b"\x00second\xff", 25, 1, 0), 1_800_000_009_000
    )
    rows = store.query(
        "SELECT finding_id, table_id, round_id, start_event_id, check, seat, message "
        "FROM findings_v"
    ).result_rows
    assert len(rows) == 1
    finding_id, table, rnd, start, check, seat, message = rows[0]
    assert (table, rnd, start, check, seat) == ("TCP-01", "R-12", "", "ADVANTAGE_PLAY_SUSPECTED", 3)
    assert message.startswith("PC-1: decisions track the dealer's first card")
    assert "threshold 9.90" in message and "log-likelihood ratio 10.25" in message
    # the findings topic's message names the stored row
    ((key, value),) = finding_messages([FINDING], stored)
    assert key == b"TCP-01"
    assert f'"finding_id":"{finding_id}"'.encode() in value
    assert b'"start_event_id":""' in value


def test_tablewatch_patterns_refuses_an_embedded_store_by_name(tmp_path: Path) -> None:
    config = tmp_path / "tables.yaml"
    config.write_text("tables: {}\n")
    result = CliRunner().invoke(
        main, ["patterns", "--config", str(config), "--dsn", f"chdb:///{tmp_path / 's'}"]
    )
    assert result.exit_code == 2
    assert "an embedded store is its worker's alone" in result.output


def test_two_findings_of_one_check_on_one_round_and_seat_are_two_rows(store: Client) -> None:
    # a dealer's rate of two checks, whose latest evidence is the same round
    rates = [
        PatternFinding(
            check="DEALER_ERROR_RATE_HIGH",
            unit="DL-9",
            table_id=None,
            message=f"dealer DL-9: {code} in 9 of 200 rounds dealt",
            statistic_name=f"-log10 p, one-sided Poisson ({code})",
            statistic=6.5,
            threshold=5.0,
            false_alarm_rate="at most 1e-05 per dealer, check and look",
            evidence=(("TCP-01", "R-40"),),
            first_ts="2026-11-29T18:00:00.000Z",
            last_ts="2026-11-29T19:00:00.000Z",
        )
        for code in ("WRONG_PAYOUT", "BET_AFTER_LOCKOUT")
    ]
    write_step(store, "table-events", 1, Step(rates, b"state", 200, 0, 0), 1_800_000_000_000)
    rows = store.query(
        "SELECT round_id, message FROM findings_v WHERE check = 'DEALER_ERROR_RATE_HIGH' "
        "ORDER BY message"
    ).result_rows
    assert [tuple(r) for r in rows] == [
        ("R-40", rates[1].as_finding().message),
        ("R-40", rates[0].as_finding().message),
    ]
