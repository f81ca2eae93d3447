"""DEALER_FAVOURS_SEAT and DEALER_ERROR_RATE_HIGH on hand-made rounds of four seats.

An overpayment here pays a losing seat's three $25.00 bets $25.00 each (WRONG_PAYOUT,
$150.00 in the player's favour: $75.00 not collected and $75.00 paid)."""

from __future__ import annotations

from tablewatch.patterns.dealer_errors import DealerErrors, binomial_tail, poisson_tail
from tablewatch.patterns.finding import PatternFinding
from tablewatch.script import TableScript
from tests.patterns import rounds


def _dealer(
    t: TableScript,
    dealer: str,
    n: int,
    overpaid: list[int],
    player_ids: dict[int, str] | None = None,
) -> None:
    """``n`` rounds by ``dealer``; every 5th (the 1st, 6th, ...) overpays the seat next in
    ``overpaid`` (cycling)."""
    errors = 0
    for i in range(n):
        won: tuple[int, ...] = ()
        if i % 5 == 0:
            won = (overpaid[errors % len(overpaid)],)
            errors += 1
        rounds.play(t, f"{dealer}-R{i}", dealer=dealer, won_by=won, player_ids=player_ids)


def _found(t: TableScript) -> list[tuple[str, PatternFinding]]:
    configs = rounds.configs()
    fold = DealerErrors(configs)
    return [(r.round_id, f) for r in rounds.judged(t, configs) for f in fold.feed(r)]


def test_tails_against_hand_computed_values() -> None:
    # P(Poisson(1) >= 2) = 1 - 2/e; P(Binomial(4, 1/2) >= 3) = 5/16
    assert abs(poisson_tail(2, 1.0) - (1 - 2 / 2.718281828459045)) < 1e-12
    assert abs(binomial_tail(3, 4, 0.5) - 5 / 16) < 1e-12
    assert poisson_tail(0, 3.0) == 1.0 and binomial_tail(5, 4, 0.5) == 0.0


def test_a_dealer_overpaying_seat_3_in_20_of_100_rounds_is_found() -> None:
    t = rounds.table()
    _dealer(t, "DL-7", 100, [3])
    favours = [(r, f) for r, f in _found(t) if f.check == "DEALER_FAVOURS_SEAT"]
    # seat 3 holds 1/4 of the hands: 4 * (1/4)^f <= 1e-6 first at f = 11, the 51st round
    assert [r for r, _ in favours] == ["DL-7-R50"]
    finding = favours[0][1]
    assert (finding.unit, finding.seat, finding.table_id) == ("LIR-P:DL-7:3", 3, None)
    assert finding.message == (
        "dealer DL-7: 11 of 11 money errors in the players' favour went to LIR-P:DL-7:3, "
        "which held 51 of the 204 hands the dealer dealt (25%); the largest $150.00"
    )
    assert finding.threshold == 6.0 and finding.statistic > 6.0
    assert len(finding.evidence) == 5 and all(k[1].startswith("DL-7-R") for k in finding.evidence)
    assert finding.as_finding().table_id == "LIR-P"


def test_an_honest_dealer_of_the_same_size_is_not() -> None:
    t = rounds.table()
    _dealer(t, "DL-8", 100, [1, 2, 3, 4])  # the same 20 errors, spread over the seats
    assert [f for _, f in _found(t) if f.check == "DEALER_FAVOURS_SEAT"] == []


def test_the_unit_is_the_players_tracking_card_when_his_wagers_carry_one() -> None:
    t = rounds.table()
    _dealer(t, "DL-7", 100, [3], player_ids={3: "P-42"})
    favours = [f for _, f in _found(t) if f.check == "DEALER_FAVOURS_SEAT"]
    assert [(f.unit, f.seat) for f in favours] == [("P-42", None)]


def test_a_dealer_erring_ten_times_the_floors_rate_is_found_the_others_not() -> None:
    # four dealers err in 2 of 100 rounds (every 50th), DL-9 in 20 of 100
    t = rounds.table()
    for dealer in ("DL-1", "DL-2", "DL-3", "DL-4"):
        for i in range(100):
            rounds.play(
                t, f"{dealer}-R{i}", dealer=dealer, won_by=(i % 4 + 1,) if i % 50 == 0 else ()
            )
    _dealer(t, "DL-9", 100, [1, 2, 3, 4])
    rates = [(r, f) for r, f in _found(t) if f.check == "DEALER_ERROR_RATE_HIGH"]
    assert [f.unit for _, f in rates] == ["DL-9"]
    round_id, finding = rates[0]
    # floor: (8 + 1) / (400 + 1); DL-9's x-th error comes in its round 5(x - 1) + 1:
    # P(Poisson(36 * 9/401) >= 8) = 2.2e-6, P(Poisson(41 * 9/401) >= 9) = 5.7e-7 (<= 1e-6)
    assert round_id == "DL-9-R40"
    assert finding.message.startswith("dealer DL-9: WRONG_PAYOUT in 9 of 41 rounds dealt (22.0%)")
    assert abs(finding.statistic - 6.243) < 0.001  # -log10(5.7157e-7)
    assert finding.statistic_name == "-log10 p, one-sided Poisson (WRONG_PAYOUT)"
