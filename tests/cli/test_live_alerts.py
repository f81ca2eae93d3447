"""How `tablewatch live` prints a finding for the floor: where, money, rule, what happened."""

from __future__ import annotations

from rich.console import Console

from tablewatch.commands.live import alert_text


def rendered(finding: dict[str, object]) -> str:
    console = Console(width=200, record=True, color_system=None)
    console.print(alert_text(finding))
    return console.export_text()


def test_a_stake_kept_in_a_void_round_says_what_happened() -> None:
    text = rendered(
        {
            "severity": "critical",
            "check": "VOID_NOT_RETURNED",
            "table_id": "LIR-01",
            "round_id": "R-8",
            "seat": 7,
            "bet": "bet1",
            "expected": 2500,
            "actual": 0,
            "regulation": "§ 643a.13(d)",
            "message": "round voided (misdeal) but seat 7 bet1 was settled `lose` with $0.00 "
            "paid instead of returned",
        }
    )
    first, second = text.splitlines()
    assert first.split() == [
        *("CRITICAL", "VOID_NOT_RETURNED", "LIR-01", "R-8", "seat", "7", "bet1"),
        *("stake", "kept", "$25.00", "§", "643a.13(d)"),
    ]
    assert second.strip().startswith("round voided (misdeal) but seat 7 bet1 was settled `lose`")


def test_a_table_finding_with_brackets_in_its_text_prints_them() -> None:
    text = rendered(
        {
            "severity": "high",
            "check": "SEQUENCE_GAP",
            "table_id": "LIR-07",
            "round_id": None,
            "seat": None,
            "bet": None,
            "expected": None,
            "actual": None,
            "regulation": "CONTROLLER_PROTOCOL v1 seq",
            "message": "seq jumped from 5 to 9 [bold]: 3 event(s) lost",
        }
    )
    first, second = text.splitlines()
    assert first.split() == [
        "HIGH",
        "SEQUENCE_GAP",
        "LIR-07",
        "(table)",
        "CONTROLLER_PROTOCOL",
        "v1",
        "seq",
    ]
    assert second.strip() == "seq jumped from 5 to 9 [bold]: 3 event(s) lost"
