"""Table configuration (the casino's Rules Submission), validated against the regulation.

Input is the already-parsed YAML document (a ``dict``); reading the file is
the caller's business. What a table may and must say is its game's
(the descriptor's ``configuration``, :mod:`tablewatch.rules.games`). A
configuration the regulation does not allow is refused with a
:class:`ConfigError` naming the table, the key and the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import msgspec

from tablewatch.rules.config_optional import parse_optional
from tablewatch.rules.config_schema import RawTable
from tablewatch.rules.game_rules import Configuration, EnvyChoice, GameRules, LetteredSlot
from tablewatch.rules.games import UnknownGame, all_rules, names, rules_of
from tablewatch.rules.paytables.casino_supplied import casino_envy, casino_pay_table
from tablewatch.rules.paytables.table import PayTable
from tablewatch.rules.table_config import TableConfig

__all__ = ["ConfigError", "TableConfig", "parse_config", "parse_table"]

T = TypeVar("T")


class ConfigError(ValueError):
    """A configuration refused, with the reason and the rule it breaks."""


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
    """Validate one table's configuration against its game's descriptor."""
    try:
        spec = msgspec.convert(raw, RawTable)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"table {table_id}: {_where(exc)}") from None
    try:
        rules = rules_of(spec.game)
    except UnknownGame:
        chapters = ", ".join(r.chapter for r in all_rules())
        raise ConfigError(
            f"table {table_id}: game {spec.game!r} is not one this service audits "
            f"({', '.join(names())}: 58 Pa. Code {chapters})"
        ) from None
    game = rules.name
    allowed = rules.configuration
    paytables: dict[str, PayTable] = {}
    envy: dict[str, int] = {}
    five_card_envy: dict[str, int] = {}
    lettered = allowed.lettered
    casino = allowed.casino_supplied
    for wager, choice in spec.paytables.items():
        where = f"table {table_id}: paytables.{wager}"
        if allowed.envy is not None and wager == allowed.envy.slot:
            envy = _envy(where, choice, allowed.envy)
        elif wager in lettered:
            paytables[wager] = _lettered(where, choice, lettered[wager])
        elif wager == allowed.casino_envy:
            five_card_envy = _casino(casino_envy, where, choice)
        elif wager in casino:
            paytables[wager] = _casino(casino_pay_table, where, wager, casino[wager], choice)
        else:
            known = sorted([*lettered, *([allowed.envy.slot] if allowed.envy else [])])
            known += [*casino, *([allowed.casino_envy] if allowed.casino_envy else [])]
            raise ConfigError(f"{where}: {game} has no such wager (known: {', '.join(known)})")
    for wager in allowed.required:
        if wager not in paytables:
            raise ConfigError(
                f"table {table_id}: paytables.{wager} is required: the casino selects one "
                f"of the tables of {lettered[wager].section}"
            )
    _check_progressive(table_id, allowed, spec, paytables, envy)
    _check_payout_limit(table_id, allowed, spec.payout_limit)
    fixed = allowed.fixed_envy
    if fixed is not None and fixed.with_slot in paytables:
        envy = dict(fixed.per_dollar)
    try:
        optional = parse_optional(spec.pit, spec.cameras, spec.signing, spec.keys)
    except ValueError as exc:
        raise ConfigError(f"table {table_id}: {exc}") from None
    return TableConfig(
        table_id=table_id,
        game=game,
        rules=rules,
        paytables=paytables,
        counting_shuffler=spec.counting_shuffler,
        payout_limit=spec.payout_limit,
        progressive_reset=spec.progressive_reset,
        progressive_rate=spec.progressive_rate,
        dealing=spec.dealing,
        envy_per_dollar=envy,
        five_card_envy_per_dollar=five_card_envy,
        pit=optional.pit,
        cameras=optional.cameras,
        signing=optional.signing,
        keys=optional.keys,
    )


def _casino(build: Callable[..., T], *args: object) -> T:
    """A casino-supplied table; its ``ValueError`` becomes a :class:`ConfigError`."""
    try:
        return build(*args)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _lettered(where: str, choice: object, slot: LetteredSlot) -> PayTable:
    tables = slot.tables
    if not isinstance(choice, str) or choice not in tables:
        raise ConfigError(
            f"{where}: {choice!r} is not a pay table of {slot.section} "
            f"(choose one of {', '.join(sorted(tables))})"
        )
    return tables[choice]


def _envy(where: str, choice: object, slot: EnvyChoice) -> dict[str, int]:
    tables = slot.tables
    if not isinstance(choice, str) or choice not in tables:
        raise ConfigError(
            f"{where}: {choice!r} is not an Envy Bonus pay table of "
            f"{slot.section} (choose one of {', '.join(tables)})"
        )
    return dict(tables[choice])


def _check_progressive(
    table_id: str,
    allowed: Configuration,
    spec: RawTable,
    paytables: Mapping[str, PayTable],
    envy: Mapping[str, int],
) -> None:
    reset = allowed.progressive_reset
    progressive = paytables.get(reset.slot)
    meter_wagers = [w for w, t in paytables.items() if t.pays_meter]
    reset_section = reset.section
    if meter_wagers and spec.progressive_reset is None:
        raise ConfigError(
            f"table {table_id}: progressive_reset is required when a progressive wager is "
            f"offered ({', '.join(meter_wagers)}): the initial and reset amount must be in "
            f"the Rules Submission ({reset_section})"
        )
    if progressive is not None and spec.progressive_reset is not None:
        minimum = reset.minimum[progressive.letter]
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
    choice = allowed.envy
    if choice is not None and choice.required_with in paytables and not envy:
        raise ConfigError(
            f"table {table_id}: paytables.{choice.slot} is required with the "
            f"{choice.required_with} wager: the casino selects Envy Bonus table "
            f"{' or '.join(choice.tables)} ({choice.section})"
        )


def _check_payout_limit(table_id: str, allowed: Configuration, limit: int | None) -> None:
    if limit is None:
        return
    rule = allowed.payout_limit
    if rule is None:
        limited = [r for r in all_rules() if r.configuration.payout_limit is not None]
        sections = ", ".join(_limit_section(r) for r in limited)
        raise ConfigError(
            f"table {table_id}: payout_limit applies to "
            f"{' and '.join(r.title for r in limited)} only ({sections})"
        )
    if limit < rule.minimum:
        raise ConfigError(
            f"table {table_id}: payout_limit {_dollars(limit)} is under the "
            f"{_dollars(rule.minimum)} minimum per hand ({rule.section})"
        )


def _limit_section(rules: GameRules) -> str:
    rule = rules.configuration.payout_limit
    return rule.section if rule is not None else ""


def _dollars(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _where(exc: msgspec.ValidationError) -> str:
    text = str(exc)
    if " - at `$." in text:
        reason, _, field = text.rpartition(" - at `$.")
        return f"{field.rstrip('`')}: {reason}"
    return text
