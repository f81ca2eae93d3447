"""The money of every check code, as each surface shows it (issue 28, item 4).

One case per code of the catalog: a finding of that code judged from a real round (the
scenarios of tests/rules), its money written out here by hand, and the same words on the
console (``tablewatch findings``, ``rounds show``, the audit's and ``live``'s lines), the
pages (the findings page, the round page), the CSV (``/findings.csv``, ``tablewatch
findings --format csv``) and the alert (its ``money`` annotation, which the mail prints,
and its summary). A code with no money shows no amount anywhere.

Every case's events are given a table of their own and stored in one store.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterator
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from tablewatch.alerts.am_config import TEXT
from tablewatch.alerts.convert import alert_of_finding
from tablewatch.alerts.rules_file import parse_rules
from tablewatch.api.app import create_app
from tablewatch.api.sources import ReaderPool, open_product_reader
from tablewatch.cli import main as cli
from tablewatch.commands.live import alert_text
from tablewatch.config_file import entry_json
from tablewatch.finding_money import money_text
from tablewatch.links import round_path
from tablewatch.report import finding_line
from tablewatch.rules.audit import Auditor
from tablewatch.rules.checks import event_not_processed
from tablewatch.rules.checks.catalog import CHECKS, PATTERN_CHECKS
from tablewatch.rules.config import parse_config
from tablewatch.rules.events import AnyEvent
from tablewatch.rules.findings import Finding
from tablewatch.script import TableScript
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.table_directory import directory_rows, write_directory
from tablewatch.store.writer import StoreWriter
from tests.rules.test_checks import (
    _deck_age,
    _exposed,
    _fcp_envy,
    _fcp_play,
    _late_side_bet,
    _lir_paid,
    _progressive_round,
    _pull,
    _settles,
    _shuffled,
    _stub,
)
from tests.rules.test_own_checks import _side_bet
from tests.rules.test_three_card_poker import CONFIG as TCP_CONFIG
from tests.rules.test_three_card_poker import golden_round as tcp_round
from tests.scenarios import CONFIG, lir_deal, lir_round, lir_table
from tests.store.helpers import JUDGED_AT, audit_events

NO_MONEY = ""  # the finding shows no amount


# ---- the rounds -------------------------------------------------------------------------


def _unequal() -> TableScript:
    """The issue's round: bets of $25, $30 and $25."""
    t = lir_table()
    t.round_start("R-1", "D-1")
    for bet, stake in (("bet1", 2500), ("bet2", 3000), ("bet3", 2500)):
        t.wager(2, bet, stake)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.stub_count(47)
    t.reveal("community", 1)
    t.reveal("community", 2)
    for bet, paid in (("bet1", 2500), ("bet2", 3000), ("bet3", 2500)):
        t.settle(2, bet, "win", paid)
    t.round_end()
    return t


def _stubless() -> TableScript:
    t = lir_table()
    for i in range(1, 6):
        lir_round(t, f"R-{i}", stub=False)
    return t


def _duplicate() -> TableScript:
    t = lir_table()
    lir_round(t, hand=("Ah", "Ad", "9d"), community=("7s", "9d"), paid_each=5000)
    return t


def _gap() -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    t.skip_seq(3)
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.stub_count(47)
    t.reveal("community", 1)
    t.reveal("community", 2)
    for bet in ("bet1", "bet2", "bet3"):
        t.settle(2, bet, "win", 2500)
    t.round_end()
    return t


def _incomplete() -> TableScript:
    t = lir_table()
    lir_round(t)
    t.events.pop()  # no round_end
    return t


def _unconfigured() -> TableScript:
    t = TableScript("LIR-99")
    t.deck_in("D-1")
    lir_round(t)
    return t


def _game_mismatch() -> TableScript:
    t = TableScript("LIR-1")
    t.table_open("four_card_poker")
    return t


def _outside_round() -> TableScript:
    t = lir_table()
    lir_round(t)
    t.round_id = "R-1"
    t.settle(2, "bet1", "win", 2500)  # after round_end
    return t


def _regression() -> TableScript:
    t = lir_table()
    lir_round(t)
    t.seq -= 10
    t.dealer_change("DL-2")
    return t


def _reused() -> TableScript:
    t = lir_table()
    lir_round(t, "R-1")
    lir_round(t, "R-2")
    lir_round(t, "R-1")
    return t


def _undecided() -> TableScript:
    """Three Card Poker's golden round, seat 3 neither playing nor folding its $10 Ante."""
    return tcp_round(decisions=((1, "play", 1_000), (2, "play", 1_000), (5, "play", 1_000)))


def _dead_letter() -> TableScript:
    """A clean round; the worker then could not decode a message of the table."""
    t = lir_table()
    lir_round(t)
    return t


@dataclass(frozen=True)
class Case:
    check: str
    round: Callable[[], TableScript]
    money: str  # written out by hand: what every surface shows


CASES = [
    Case("WRONG_PAYOUT", lambda: _lir_paid(5000), "owed $25.00, paid $50.00: overpaid by $25.00"),
    Case("BET_AFTER_LOCKOUT", lambda: _late_side_bet(late=True), "placed after the lockout $5.00"),
    Case("PROGRESSIVE_COUNT_MISMATCH", lambda: _progressive_round(chips=2), NO_MONEY),
    Case("STUB_COUNT_MISSING", _stubless, NO_MONEY),
    Case("STUB_COUNT_MISMATCH", lambda: _stub(46), NO_MONEY),
    Case("SHUFFLER_COUNT_MISMATCH", lambda: _shuffled(51), NO_MONEY),
    Case(
        "JACKPOT_PAID_FROM_INVENTORY",
        lambda: _progressive_round(chips=1, paid_from="table_inventory"),
        "jackpot paid $2,500.00",
    ),
    Case(
        "JACKPOT_NOT_VALIDATED",
        lambda: _progressive_round(chips=1, validated=False),
        "paid without validation $2,500.00",
    ),
    Case(
        "ENVY_BONUS_WRONG",
        lambda: _fcp_envy(None),  # seat 3 owed a $10 Envy Bonus, paid none
        "owed $10.00, paid $0.00: underpaid by $10.00",
    ),
    Case("PLAY_WAGER_OUT_OF_RANGE", lambda: _fcp_play(4000), "wagered $40.00, most allowed $30.00"),
    Case("DECISION_MISSING", _undecided, "stake with no decision $10.00"),  # seat 3's Ante
    Case("UNEQUAL_BETS", _unequal, "lowest bet $25.00, highest bet $30.00"),
    Case("LATE_WITHDRAWAL", lambda: _pull(late=True), "pulled late $25.00"),
    Case("UNSETTLED_WAGER", lambda: _settles(2), "paid in all $50.00"),  # bet3 paid $25 twice
    Case("ROUND_NOT_VOIDED", lambda: _exposed(void=False), NO_MONEY),
    Case("VOID_NOT_RETURNED", lambda: _exposed(void=True, collected=True), "stake kept $25.00"),
    Case("DUPLICATE_CARD", _duplicate, NO_MONEY),
    Case("DECK_CHANGE_OVERDUE", lambda: _deck_age(4 * 60 + 1, "hand"), NO_MONEY),
    Case("SEQUENCE_GAP", _gap, NO_MONEY),
    Case("ROUND_INCOMPLETE", _incomplete, NO_MONEY),
    Case("TABLE_NOT_CONFIGURED", _unconfigured, NO_MONEY),
    Case("GAME_MISMATCH", _game_mismatch, NO_MONEY),
    Case("WAGER_NOT_OFFERED", lambda: _side_bet("aces_up"), "wagered $5.00"),
    Case("EVENT_OUTSIDE_ROUND", _outside_round, NO_MONEY),
    Case("SEQUENCE_REGRESSION", _regression, NO_MONEY),
    Case("EVENT_NOT_PROCESSED", _dead_letter, NO_MONEY),
    Case("ROUND_ID_REUSED", _reused, NO_MONEY),
]
BY_CHECK = {case.check: case for case in CASES}


def table_of(case: Case) -> str:
    return f"M{CASES.index(case):02d}"


def _relabel(events: list[AnyEvent], table_id: str) -> list[AnyEvent]:
    """The events as if sent by table ``table_id`` (event ids prefixed: unique in the store)."""
    return [
        msgspec.structs.replace(e, table_id=table_id, event_id=f"{table_id}-{e.event_id}")
        for e in events
    ]


# ---- the store, the API, the alert rules ------------------------------------------------


@dataclass(frozen=True)
class Judged:
    dsn: str
    findings: dict[str, Finding]  # one finding of each code, as judged


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Judged:
    tables: dict[str, Any] = {}
    events: list[AnyEvent] = []
    for case in CASES:
        script = case.round()
        table_id = table_of(case)
        if case.check != "TABLE_NOT_CONFIGURED":
            tables[table_id] = deepcopy(
                {**CONFIG["tables"], **TCP_CONFIG["tables"]}[script.table_id]
            )
        events += _relabel(script.events, table_id)
    document = {"tables": tables}
    configs = parse_config(document)
    audited = audit_events(events, Auditor(configs))
    dead = BY_CHECK["EVENT_NOT_PROCESSED"]
    audited.outcomes.append(
        event_not_processed.finding(
            table_of(dead), "table-events partition 0 offset 7", None, "decode",
            "not JSON", "2026-11-29T20:30:00.000Z",
        )
    )  # fmt: skip
    findings: dict[str, Finding] = {}
    for finding in audited.findings:
        if finding.table_id == table_of(BY_CHECK[finding.check]):
            findings.setdefault(finding.check, finding)  # the first of its code at its table
    dsn = f"chdb:///{tmp_path_factory.mktemp('money')}"
    client = connect(dsn)
    try:
        migrate(client)
        StoreWriter(client).insert_batch(audited.batch())
        entries = {t: entry_json(entry) for t, entry in tables.items()}
        write_directory(client, directory_rows(configs, entries, JUDGED_AT))
    finally:
        client.close()
    return Judged(dsn, findings)


@pytest.fixture(scope="module")
def api(judged: Judged) -> Iterator[TestClient]:
    readers = ReaderPool(lambda: open_product_reader(judged.dsn), size=1)
    try:
        yield TestClient(create_app(readers, described_as="test"))
    finally:
        readers.close()


RULES = parse_rules("""\
contacts:
  pm: {email: pm@casino.test}
shifts:
  day: {start: "08:00", end: "20:00"}
  night: {start: "20:00", end: "08:00"}
pits:
  Pit 1:
    tables: ["M*"]
    on_call: {day: [pm], night: [pm]}
fallback: [pm]
escalation: [5m]
auditor_url: https://audit.casino.test
rules:
  - name: everything
    min_severity: low
""")


# ---- the surfaces -------------------------------------------------------------------------


def _stored(api: TestClient, case: Case) -> dict[str, Any]:
    """The stored finding of ``case`` (the API's JSON), the first of its code at its table."""
    answer = api.get("/api/v1/findings", params={"table": table_of(case), "check": case.check})
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    assert items, f"no {case.check} stored"
    return items[-1]  # newest first: the first judged is last


def _page_cell(html: str, check: str) -> str:
    """The money cell of the first findings row of ``check`` in a page."""
    row = re.search(rf'<tr data-check="{check}"[^>]*>(.*?)</tr>', html, re.DOTALL)
    assert row is not None, f"no {check} row"
    cell = re.search(r'<td class="money">(.*?)</td>', row.group(1), re.DOTALL)
    assert cell is not None, f"no money cell in the {check} row"
    return cell.group(1).strip()


def _csv_money(text: str, check: str) -> list[str]:
    rows = list(csv.DictReader(io.StringIO(text)))
    return [r["money"] for r in rows if r["check"] == check]


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def _table_cells(text: str, check: str) -> dict[str, str]:
    """The cells of ``check``'s first row in ``tablewatch findings``'s table, by column."""
    lines = [line for line in text.splitlines() if "│" in line or "┃" in line]
    header = [c.strip() for c in re.split("[│┃]", lines[0])[1:-1]]
    for line in lines[1:]:
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if check in cells:
            return dict(zip(header, cells, strict=True))
    raise AssertionError(f"no {check} row in:\n{text}")


def on_a_round(stored: dict[str, Any]) -> bool:
    """A finding of a judged round (not a table's, nor an event outside any round)."""
    return stored["round_id"] is not None and stored["start_event_id"] is not None


def _round_show_line(text: str, check: str) -> str:
    return next(line.strip() for line in text.splitlines() if line.strip().startswith(check + " ["))


def test_the_cases_are_the_catalog_one_each() -> None:
    """Every code judged from one round; the patterns span many rounds and show no money."""
    assert [case.check for case in CASES] == [c for c in CHECKS if c not in PATTERN_CHECKS]
    assert all(money_text(code, 100, 200) == NO_MONEY for code in PATTERN_CHECKS)


@pytest.mark.parametrize("case", CASES, ids=[case.check for case in CASES])
def test_each_check_shows_its_money_alike_on_every_surface(
    case: Case, judged: Judged, api: TestClient
) -> None:
    money = case.money
    judged_finding = judged.findings[case.check]
    stored = _stored(api, case)
    table_id = table_of(case)
    if money == NO_MONEY:  # the code carries no amount, so no surface can show one
        assert (judged_finding.expected, judged_finding.actual) == (None, None)

    # the console: the audit's line, live's line, `tablewatch findings`, `rounds show`
    line = finding_line(judged_finding)
    if money:
        assert f": {money}; " in line
    else:
        assert "$" not in line.split(judged_finding.message)[0]
    live = alert_text(stored).splitlines()[0]
    assert ("$" in live) == bool(money) and money in live
    listed = _cli(
        "findings", "--dsn", judged.dsn, "--table", table_id, "--check", case.check,
        "--format", "table",
    )  # fmt: skip
    assert _table_cells(listed, case.check)["money"] == (money or "-")
    if on_a_round(stored):
        shown = _cli(
            "rounds", "show", table_id, stored["round_id"], "--start", stored["start_event_id"],
            "--dsn", judged.dsn,
        )  # fmt: skip
        finding = _round_show_line(shown, case.check)
        if money:
            assert finding.endswith(f"; {money}")
        else:
            after = finding.split(stored["regulation"], 1)[1]  # where, then the money
            assert "$" not in after and ";" not in after

    # the pages: the findings page, the round page
    page = api.get("/findings", params={"table": table_id, "check": case.check})
    assert page.status_code == 200
    assert _page_cell(page.text, case.check) == money
    if on_a_round(stored):
        path = round_path(table_id, stored["round_id"])
        round_page = api.get(path, params={"start_event_id": stored["start_event_id"]})
        assert round_page.status_code == 200
        assert _page_cell(round_page.text, case.check) == money

    # the CSV: the pages' download and the command's
    download = api.get("/findings.csv", params={"table": table_id, "check": case.check})
    assert download.status_code == 200
    assert set(_csv_money(download.text, case.check)) == {money}
    written = _cli(
        "findings", "--dsn", judged.dsn, "--table", table_id, "--check", case.check,
        "--format", "csv",
    )  # fmt: skip
    assert set(_csv_money(written, case.check)) == {money}

    # the alert: the mail's money line is its `money` annotation; the summary ends with it
    alert = alert_of_finding(stored, RULES, raised_ms=JUDGED_AT)
    assert alert is not None
    assert alert.annotations["money"] == money
    summary = alert.annotations["summary"]
    if money:
        assert summary.endswith(f"(Pit 1): {money}")
    else:
        assert summary.endswith("(Pit 1)") and "$" not in summary
    assert stored["money"] == money


def test_the_mail_prints_the_money_annotation_and_nothing_else_of_the_amounts() -> None:
    assert "{{ if .Annotations.money }}  money:    {{ .Annotations.money }}\n{{ end }}" in TEXT
    assert ".Annotations.expected" not in TEXT and ".Annotations.actual" not in TEXT


def test_the_round_page_counts_the_lines_it_marks_wrong(judged: Judged, api: TestClient) -> None:
    """An Envy Bonus owed and not paid is marked WRONG, and counted in the header."""
    counts = {}
    for case in CASES:
        stored = _stored(api, case)
        if not on_a_round(stored):
            continue
        page = api.get(
            round_path(table_of(case), stored["round_id"]),
            params={"start_event_id": stored["start_event_id"]},
        ).text
        header = re.search(r"<h2>Money: (\d+) wrong line", page)
        assert header is not None
        counts[case.check] = (int(header.group(1)), page.count("✗ WRONG"))
    assert all(said == marked for said, marked in counts.values()), counts
    assert counts["ENVY_BONUS_WRONG"] == (1, 1)
    envy = _stored(api, BY_CHECK["ENVY_BONUS_WRONG"])
    table_id = table_of(BY_CHECK["ENVY_BONUS_WRONG"])
    shown = _cli("rounds", "show", table_id, "R-1", "--dsn", judged.dsn)
    assert envy["round_id"] == "R-1"
    assert [line for line in shown.splitlines() if "Envy Bonus to seat" in line] == [
        "!! Envy Bonus to seat 3 for seat 1's four of a kind: owed $10.00, paid - "
        "(§ 641a.11(c)(5)(v), § 641a.12(d)(5))"
    ]
    assert counts["VOID_NOT_RETURNED"] == (1, 1)
    assert counts["WRONG_PAYOUT"] == (1, 1)


def test_the_findings_json_carries_the_money_in_words(judged: Judged) -> None:
    out = _cli("findings", "--dsn", judged.dsn, "--check", "VOID_NOT_RETURNED", "--format", "json")
    (row,) = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert (row["expected"], row["actual"], row["money"]) == (2500, 0, "stake kept $25.00")


def test_the_stored_fields_of_a_kept_stake_and_of_unequal_bets(judged: Judged) -> None:
    """The two checks whose stored amounts said nothing: a kept stake was $0 and $0, bets of
    $25, $30 and $25 were $25 and $25."""
    kept = judged.findings["VOID_NOT_RETURNED"]
    assert (kept.bet, kept.expected, kept.actual) == ("bet3", 2500, 0)
    unequal = judged.findings["UNEQUAL_BETS"]
    assert (unequal.expected, unequal.actual) == (2500, 3000)
