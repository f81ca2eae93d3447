"""The deck: put in play and changed on schedule, shuffled (and miscounted), its stub counted.

Decks leave the table before the regulation's deadline (4 hours dealt by
hand, 8 from a shoe) unless an injected DECK_CHANGE_OVERDUE keeps one past
it; a counting shuffler reports 52 (an injected miscount keeps the deck, a
handled one replaces it); a table whose shuffler does not count has its stub
counted every 1 to 5 rounds (an injected STUB_COUNT_MISSING skips five).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from tablewatch.sim.dealing import Deal
    from tablewatch.sim.injections import RoundPlan
    from tablewatch.sim.table_state import SimTable

HOUR_MS: Final = 3_600_000
DECK_LIMIT_MS: Final = {
    "hand": 4 * HOUR_MS,
    "manual_shoe": 8 * HOUR_MS,
    "automated_shoe": 8 * HOUR_MS,
}
DECK_CHANGE_MARGIN_MS: Final = 20 * 60_000


def new_deck(table: SimTable) -> None:
    table.deck_no += 1
    table.deck_id = f"{table.config.table_id}-D{table.deck_no}"
    table.t.deck_in(table.deck_id, table.dealing)
    table.deck_in_ms = table.t.now_ms


def shuffle(table: SimTable, count: int | None = None) -> None:
    if count is None and table.config.counting_shuffler:
        count = 52
    method = (
        "manual" if table.dealing == "manual_shoe" and table.rng.random() < 0.3 else "automated"
    )
    table.t.shuffle(table.deck_id, count, method)


def change_on_schedule(table: SimTable, *, overdue: bool) -> None:
    """A new deck when this one nears its deadline; ``overdue``: keep it past the deadline."""
    limit = DECK_LIMIT_MS[table.dealing]
    if table.t.now_ms - table.deck_in_ms > limit - DECK_CHANGE_MARGIN_MS:
        table.t.deck_out(table.deck_id, "scheduled change")
        new_deck(table)
    if overdue:  # the deck stays past its deadline
        age = table.t.now_ms - table.deck_in_ms
        table.t.wait(limit - age + table.rng.randint(60_000, 30 * 60_000))


def shuffle_for_round(table: SimTable, code: str | None) -> None:
    """The shuffle before a round: miscounted for an injected SHUFFLER_COUNT_MISMATCH, now
    and then miscounted and handled right (the deck replaced)."""
    rng = table.rng
    if code == "SHUFFLER_COUNT_MISMATCH":
        shuffle(table, rng.choice((50, 51, 53)))
        table.record("SHUFFLER_COUNT_MISMATCH")
    elif table.config.counting_shuffler and code is None and rng.random() < 0.005:
        shuffle(table, 51)  # a miscount, handled right: the deck leaves the table
        table.t.deck_out(table.deck_id, "shuffler counted 51 cards")
        new_deck(table)
        shuffle(table)
    else:
        shuffle(table)


def count_stub(table: SimTable, dealt: list[Deal], plan: RoundPlan) -> bool:
    """The dealer counts the stub when due (or now and then); whether a count was made."""
    code = plan.code
    due = not table.config.counting_shuffler and table.stubless + 1 >= table.stub_due
    wanted = code == "STUB_COUNT_MISMATCH" or (
        not table.forgetting_stub and (due or table.rng.random() < 0.05)
    )
    if not wanted or plan.natural == "shoe_fault":
        return False
    taken = len(dealt) + (1 if table.face_up_card is not None else 0)
    count = 52 - taken
    if code == "STUB_COUNT_MISMATCH":
        count += table.rng.choice((-2, -1, 1))
        table.record("STUB_COUNT_MISMATCH")
    table.pause(1_000, 4_000)
    table.t.stub_count(count)
    return True


def update_stub_cadence(table: SimTable, counted: bool) -> None:
    if table.config.counting_shuffler:
        return
    if counted:
        table.stubless = 0
        table.stub_due = table.rng.randint(1, 4)
        return
    table.stubless += 1
    if table.stubless >= 5:
        table.stubless = 0
        table.forgetting_stub = False
        table.stub_due = table.rng.randint(1, 4)
