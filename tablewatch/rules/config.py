"""Table configuration (the casino's Rules Submission), validated against the regulation.

Input is the already-parsed YAML document (a ``dict``); reading the file is
the caller's business. A configuration the regulation does not allow is
refused with a :class:`ConfigError` naming the table, the key and the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import msgspec

from tablewatch.rules.config_schema import RawTable
from tablewatch.rules.paytables import (
    aces_up,
    five_card_bonus,
    four_card_poker_progressive,
    let_it_ride_main,
    let_it_ride_progressive,
    three_card_bonus,
)
from tablewatch.rules.paytables.casino_supplied import (
    CASINO_SUPPLIED,
    casino_envy,
    casino_pay_table,
)
from tablewatch.rules.paytables.table import PayTable

T = TypeVar("T")

GAMES = ("four_card_poker", "let_it_ride")
GameName = Literal["four_card_poker", "let_it_ride"]


class ConfigError(ValueError):
    """A configuration refused, with the reason and the rule it breaks."""


@dataclass(frozen=True, slots=True)
class TableConfig:
    """The validated rules of one table."""

    table_id: str
    game: GameName
    paytables: Mapping[str, PayTable]  # by wager name ("main", "aces_up", ...)
    counting_shuffler: bool
    payout_limit: int | None  # cents, Let It Ride main bets per hand
    progressive_reset: int | None  # cents
    progressive_rate: float | None  # share of each progressive wager added to the meter
    dealing: str | None
    envy_per_dollar: Mapping[str, int]  # three-card / Four Card Poker Envy Bonus, cents per $1
    five_card_envy_per_dollar: Mapping[str, int]  # 2019 Five-Card Envy Bonus, cents per $1

    def offers(self, wager: str) -> bool:
        return wager in self.paytables

    def letter(self, wager: str) -> str | None:
        table = self.paytables.get(wager)
        return table.letter if table else None


# Which wagers take which lettered tables, per game.
_LETTERED: dict[str, dict[str, Mapping[str, PayTable]]] = {
    "let_it_ride": {
        "main": let_it_ride_main.MAIN,
        "five_card_bonus": five_card_bonus.FIVE_CARD_BONUS,
        "three_card_bonus": three_card_bonus.THREE_CARD_BONUS,
        "progressive": let_it_ride_progressive.PROGRESSIVE,
    },
    "four_card_poker": {
        "aces_up": aces_up.ACES_UP,
        "progressive": four_card_poker_progressive.PROGRESSIVE,
    },
}
_SECTIONS = {
    ("let_it_ride", "main"): let_it_ride_main.SECTION,
    ("let_it_ride", "five_card_bonus"): five_card_bonus.SECTION,
    ("let_it_ride", "three_card_bonus"): three_card_bonus.SECTION,
    ("let_it_ride", "progressive"): let_it_ride_progressive.SECTION,
    ("four_card_poker", "aces_up"): aces_up.SECTION,
    ("four_card_poker", "progressive"): four_card_poker_progressive.SECTION,
    ("four_card_poker", "envy"): four_card_poker_progressive.ENVY_SECTION,
}
_REQUIRED = {"let_it_ride": ("main",), "four_card_poker": ("aces_up",)}


def parse_config(document: Any) -> dict[str, TableConfig]:
    """Validate a whole configuration document ``{"tables": {table_id: {...}}}``."""
    if not isinstance(document, dict) or not isinstance(document.get("tables"), dict):
        raise ConfigError("configuration: expected a mapping with a `tables` mapping at the top")
    extra = set(document) - {"tables"}
    if extra:
        raise ConfigError(f"configuration: unknown top-level key(s) {sorted(extra)}")
    return {
        str(table_id): parse_table(str(table_id), raw)
        for table_id, raw in document["tables"].items()
    }


def parse_table(table_id: str, raw: Any) -> TableConfig:
    """Validate one table's configuration."""
    try:
        spec = msgspec.convert(raw, RawTable)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"table {table_id}: {_where(exc)}") from None
    if spec.game not in GAMES:
        raise ConfigError(
            f"table {table_id}: game {spec.game!r} is not one this service audits "
            f"({', '.join(GAMES)}: 58 Pa. Code ch. 641a, ch. 643a)"
        )
    game: GameName = "let_it_ride" if spec.game == "let_it_ride" else "four_card_poker"
    paytables: dict[str, PayTable] = {}
    envy: dict[str, int] = {}
    five_card_envy: dict[str, int] = {}
    lettered = _LETTERED[game]
    for wager, choice in spec.paytables.items():
        where = f"table {table_id}: paytables.{wager}"
        if game == "four_card_poker" and wager == "envy":
            envy = _fcp_envy(where, choice)
        elif wager in lettered:
            paytables[wager] = _lettered(where, game, wager, choice, lettered[wager])
        elif game == "let_it_ride" and wager == "five_card_envy":
            five_card_envy = _casino(casino_envy, where, choice)
        elif game == "let_it_ride" and wager in CASINO_SUPPLIED:
            paytables[wager] = _casino(casino_pay_table, where, wager, choice)
        else:
            known = sorted([*lettered, *(("envy",) if game == "four_card_poker" else ())])
            if game == "let_it_ride":
                known += [*CASINO_SUPPLIED, "five_card_envy"]
            raise ConfigError(f"{where}: {game} has no such wager (known: {', '.join(known)})")
    for wager in _REQUIRED[game]:
        if wager not in paytables:
            section = _SECTIONS[(game, wager)]
            raise ConfigError(
                f"table {table_id}: paytables.{wager} is required: the casino selects one "
                f"of the tables of {section}"
            )
    _check_progressive(table_id, game, spec, paytables, envy)
    _check_payout_limit(table_id, game, spec.payout_limit)
    if game == "let_it_ride" and "progressive" in paytables:
        envy = dict(let_it_ride_progressive.ENVY_PER_DOLLAR)
    return TableConfig(
        table_id=table_id,
        game=game,
        paytables=paytables,
        counting_shuffler=spec.counting_shuffler,
        payout_limit=spec.payout_limit,
        progressive_reset=spec.progressive_reset,
        progressive_rate=spec.progressive_rate,
        dealing=spec.dealing,
        envy_per_dollar=envy,
        five_card_envy_per_dollar=five_card_envy,
    )


def _casino(build: Callable[..., T], *args: object) -> T:
    """A casino-supplied table; its ``ValueError`` becomes a :class:`ConfigError`."""
    try:
        return build(*args)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _lettered(
    where: str, game: str, wager: str, choice: object, tables: Mapping[str, PayTable]
) -> PayTable:
    section = _SECTIONS[(game, wager)]
    if not isinstance(choice, str) or choice not in tables:
        raise ConfigError(
            f"{where}: {choice!r} is not a pay table of {section} "
            f"(choose one of {', '.join(sorted(tables))})"
        )
    return tables[choice]


def _fcp_envy(where: str, choice: object) -> dict[str, int]:
    tables = four_card_poker_progressive.ENVY_PER_DOLLAR
    if not isinstance(choice, str) or choice not in tables:
        raise ConfigError(
            f"{where}: {choice!r} is not an Envy Bonus pay table of "
            f"{four_card_poker_progressive.ENVY_SECTION} (choose one of {', '.join(tables)})"
        )
    return dict(tables[choice])


def _check_progressive(
    table_id: str,
    game: str,
    spec: RawTable,
    paytables: Mapping[str, PayTable],
    envy: Mapping[str, int],
) -> None:
    progressive = paytables.get("progressive")
    meter_wagers = [w for w, t in paytables.items() if t.pays_meter]
    if game == "four_card_poker":
        reset_section = four_card_poker_progressive.RESET_SECTION
        minimums = four_card_poker_progressive.MIN_RESET
    else:
        reset_section = let_it_ride_progressive.RESET_SECTION
        minimums = let_it_ride_progressive.MIN_RESET
    if meter_wagers and spec.progressive_reset is None:
        raise ConfigError(
            f"table {table_id}: progressive_reset is required when a progressive wager is "
            f"offered ({', '.join(meter_wagers)}): the initial and reset amount must be in "
            f"the Rules Submission ({reset_section})"
        )
    if progressive is not None and spec.progressive_reset is not None:
        minimum = minimums[progressive.letter]
        if spec.progressive_reset < minimum:
            raise ConfigError(
                f"table {table_id}: progressive_reset {_dollars(spec.progressive_reset)} is "
                f"under the {_dollars(minimum)} minimum for progressive pay table "
                f"{progressive.letter} ({reset_section})"
            )
    if spec.progressive_reset is not None and spec.progressive_reset < 0:
        raise ConfigError(f"table {table_id}: progressive_reset must not be negative")
    if spec.progressive_rate is not None and not 0 < spec.progressive_rate <= 1:
        raise ConfigError(
            f"table {table_id}: progressive_rate {spec.progressive_rate} must be a share of "
            f"each progressive wager, over 0 and at most 1 ({reset_section})"
        )
    if game == "four_card_poker" and progressive is not None and not envy:
        raise ConfigError(
            f"table {table_id}: paytables.envy is required with the progressive wager: "
            f"the casino selects Envy Bonus table A or B "
            f"({four_card_poker_progressive.ENVY_SECTION})"
        )


def _check_payout_limit(table_id: str, game: str, limit: int | None) -> None:
    if limit is None:
        return
    if game != "let_it_ride":
        raise ConfigError(
            f"table {table_id}: payout_limit applies to Let It Ride only "
            f"({let_it_ride_main.PAYOUT_LIMIT_SECTION})"
        )
    if limit < let_it_ride_main.MIN_PAYOUT_LIMIT:
        raise ConfigError(
            f"table {table_id}: payout_limit {_dollars(limit)} is under the "
            f"{_dollars(let_it_ride_main.MIN_PAYOUT_LIMIT)} minimum per hand "
            f"({let_it_ride_main.PAYOUT_LIMIT_SECTION})"
        )


def _dollars(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _where(exc: msgspec.ValidationError) -> str:
    text = str(exc)
    if " - at `$." in text:
        reason, _, field = text.rpartition(" - at `$.")
        return f"{field.rstrip('`')}: {reason}"
    return text
