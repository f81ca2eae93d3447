"""Table configuration (the casino's Rules Submission), validated against the regulation.

Input is the already-parsed YAML document (a ``dict``); reading the file is
the caller's business. What a table may and must say is its game's
(the descriptor's ``configuration``, :mod:`tablewatch.rules.games`). A
configuration the regulation does not allow is refused with a
:class:`ConfigError` listing every problem of every table, each naming the
table, the key and the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

import msgspec

from tablewatch.rules.config_optional import SIGNING_OFF, parse_optional
from tablewatch.rules.config_patterns import DEFAULT_PATTERNS, parse_patterns
from tablewatch.rules.config_schema import RawTable
from tablewatch.rules.game_rules import Configuration, EnvyChoice, GameRules, LetteredSlot
from tablewatch.rules.games import UnknownGame, all_rules, names, rules_of
from tablewatch.rules.paytables.casino_supplied import casino_envy, casino_pay_table
from tablewatch.rules.paytables.rows import ENVY, envy_of_rows, table_of_rows
from tablewatch.rules.paytables.table import PayTable
from tablewatch.rules.table_config import TableConfig

__all__ = ["ConfigError", "TableConfig", "parse_config", "parse_table"]

T = TypeVar("T")


class ConfigError(ValueError):
    """A configuration refused: every problem found, one line each, naming the table, the
    key and the rule it breaks."""

    def __init__(self, *problems: str) -> None:
        super().__init__(*problems)
        self.problems: tuple[str, ...] = problems

    def __str__(self) -> str:
        return "\n".join(self.problems)

    def within(self, where: str) -> ConfigError:
        """The same problems, each prefixed with ``where`` (the file)."""
        return ConfigError(*(f"{where}: {problem}" for problem in self.problems))


class _Refusals:
    """The problems of one table, and the keys they concern (``paytables.main`` for a
    wager), so that a check depending on a refused key does not refuse it again."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.problems: list[str] = []
        self.keys: set[str] = set()

    def add(self, problem: str, key: str = "") -> None:
        self.problems.append(f"table {self.table_id}: {problem}")
        if key:
            self.keys.add(key)

    def add_error(self, error: ConfigError, key: str = "") -> None:
        self.problems.extend(error.problems)
        if key:
            self.keys.add(key)

    def refused(self, key: str) -> bool:
        return key in self.keys or key.partition(".")[0] in self.keys

    def error(self) -> ConfigError:
        return ConfigError(*self.problems)


def parse_config(document: Any) -> dict[str, TableConfig]:
    """Validate a whole configuration document ``{"tables": {table_id: {...}}}``; a
    :class:`ConfigError` lists every problem of every table."""
    if not isinstance(document, dict) or not isinstance(document.get("tables"), dict):
        raise ConfigError("configuration: expected a mapping with a `tables` mapping at the top")
    problems: list[str] = []
    extra = set(document) - {"tables"}
    if extra:
        problems.append(f"configuration: unknown top-level key(s) {sorted(extra)}")
    configs: dict[str, TableConfig] = {}
    for table_id, raw in document["tables"].items():
        try:
            configs[str(table_id)] = parse_table(str(table_id), raw)
        except ConfigError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ConfigError(*problems)
    return configs


def parse_table(table_id: str, raw: Any) -> TableConfig:
    """Validate one table's configuration against its game's descriptor; a
    :class:`ConfigError` lists every problem (each key is checked on its own)."""
    refuse = _Refusals(table_id)
    spec = _raw_table(raw, refuse)
    if spec is None:
        raise refuse.error()
    try:
        rules = rules_of(spec.game)
    except UnknownGame:
        chapters = ", ".join(r.chapter for r in all_rules())
        refuse.add(
            f"game {spec.game!r} is not one this service audits "
            f"({', '.join(names())}: 58 Pa. Code {chapters})"
        )
        raise refuse.error() from None
    game = rules.name
    allowed = rules.configuration
    paytables: dict[str, PayTable] = {}
    envy: dict[str, int] = {}
    five_card_envy: dict[str, int] = {}
    lettered = allowed.lettered
    casino = allowed.casino_supplied
    by_rows = allowed.rows
    for wager, choice in spec.paytables.items():
        where = f"table {table_id}: paytables.{wager}"
        try:
            if allowed.envy is not None and wager == allowed.envy.slot:
                envy = _envy(where, choice, allowed.envy)
            elif wager in lettered:
                paytables[wager] = _lettered(where, choice, lettered[wager])
            elif wager in by_rows and by_rows[wager].payout == ENVY:
                envy = _casino(envy_of_rows, where, by_rows[wager], choice)
            elif wager in by_rows:
                paytables[wager] = _casino(table_of_rows, where, wager, by_rows[wager], choice)
            elif wager == allowed.casino_envy:
                section = allowed.casino_envy_section
                five_card_envy = _casino(casino_envy, where, section, choice)
            elif wager in casino:
                paytables[wager] = _casino(casino_pay_table, where, wager, casino[wager], choice)
            else:
                known = sorted([*lettered, *([allowed.envy.slot] if allowed.envy else [])])
                known += [*casino, *([allowed.casino_envy] if allowed.casino_envy else [])]
                known += by_rows
                raise ConfigError(
                    f"{where}: {game} has no such wager (known: {', '.join(known)}; "
                    f"58 Pa. Code {rules.chapter})"
                )
        except ConfigError as exc:
            refuse.add_error(exc, f"paytables.{wager}")
    for wager in allowed.required:
        if wager in paytables or refuse.refused(f"paytables.{wager}"):
            continue
        if wager in by_rows:
            rows = by_rows[wager]
            refuse.add(
                f"paytables.{wager} is required: the casino states its rows, highest hand "
                f"first ({len(rows.hands)} rows: {', '.join(rows.hands)}; {rows.section})"
            )
        else:
            refuse.add(
                f"paytables.{wager} is required: the casino selects one "
                f"of the tables of {lettered[wager].section}"
            )
    _check_progressive(refuse, allowed, spec, paytables, envy)
    _check_payout_limit(refuse, allowed, spec.payout_limit)
    fixed = allowed.fixed_envy
    if fixed is not None and fixed.with_slot in paytables:
        envy = dict(fixed.per_dollar)
    _check_optional(refuse, spec)
    patterns = DEFAULT_PATTERNS
    try:
        patterns = parse_patterns(spec.patterns)
    except ValueError as bad_patterns:  # a name of its own: mypyc types each name once
        refuse.add(str(bad_patterns), "patterns")
    if refuse.problems:
        raise refuse.error()
    optional = parse_optional(spec.pit, spec.cameras, spec.signing, spec.keys)
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
        patterns=patterns,
    )


_TABLE_KEYS: Final = tuple(field.name for field in msgspec.structs.fields(RawTable))


def _raw_table(raw: Any, refuse: _Refusals) -> RawTable | None:
    """The table as the file gives it, each key converted on its own: a key that is not
    what the schema says is refused (and left out) without hiding the others; None when
    there is no table to check (not a mapping, or no game)."""
    if not isinstance(raw, dict):
        try:
            msgspec.convert(raw, RawTable)
        except msgspec.ValidationError as exc:
            refuse.add(_where(exc))
        return None
    entries = dict(raw)
    paytables = entries.get("paytables")
    if isinstance(paytables, dict):
        kept: dict[Any, Any] = {}
        for wager, choice in paytables.items():
            if isinstance(choice, dict) and "rows" in choice:
                kept[wager] = choice  # a table by rows: checked by its slot
                continue
            try:
                msgspec.convert({wager: choice}, dict[str, str | dict[str, str]])
            except msgspec.ValidationError as exc:
                reason = str(exc).partition(" - at `$")[0]
                refuse.add(f"paytables.{wager}: {reason}", f"paytables.{wager}")
                continue
            kept[wager] = choice
        entries["paytables"] = kept
    while True:
        try:
            return msgspec.convert(entries, RawTable)
        except msgspec.ValidationError as exc:
            key = _failed_key(str(exc))
            if key == "game" and "game" not in entries:  # missing
                if not refuse.refused("game"):
                    refuse.add(f"game is required (one of {', '.join(names())})", "game")
                return None
            if key is None or key not in entries:
                refuse.add(_where(exc))
                return None
            if str(exc).startswith("Object contains unknown field"):
                refuse.add(f"unknown key `{key}` (a table's keys: {', '.join(_TABLE_KEYS)})", key)
            else:
                refuse.add(_where(exc), key)
            del entries[key]


def _failed_key(message: str) -> str | None:
    """The table's key that msgspec's ``message`` is about, if it says."""
    for start, end in (
        (" - at `$.", "`"),
        ("Object contains unknown field `", "`"),
        ("Object missing required field `", "`"),
    ):
        if start in message:
            rest = message.partition(start)[2]
            key = rest.partition(end)[0]
            return key.split(".")[0].split("[")[0]
    return None


def _check_optional(refuse: _Refusals, spec: RawTable) -> None:
    """The keys no rule reads, each on its own (signing with keys, which it needs)."""
    for key, args in (
        ("pit", (spec.pit, None, SIGNING_OFF, None)),
        ("cameras", (None, spec.cameras, SIGNING_OFF, None)),
        ("signing", (None, None, spec.signing, spec.keys)),
    ):
        try:
            parse_optional(*args)
        except ValueError as exc:
            refuse.add(str(exc), key)


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
    refuse: _Refusals,
    allowed: Configuration,
    spec: RawTable,
    paytables: Mapping[str, PayTable],
    envy: Mapping[str, int],
) -> None:
    reset = allowed.progressive_reset
    progressive = paytables.get(reset.slot)
    meter_wagers = [w for w, t in paytables.items() if t.pays_meter]
    reset_section = reset.section
    amount = None if refuse.refused("progressive_reset") else spec.progressive_reset
    if meter_wagers and amount is None and not refuse.refused("progressive_reset"):
        refuse.add(
            f"progressive_reset is required when a progressive wager is "
            f"offered ({', '.join(meter_wagers)}): the initial and reset amount must be in "
            f"the Rules Submission ({reset_section})"
        )
    if amount is not None and amount < 0:
        refuse.add(f"progressive_reset must not be negative ({reset_section})")
    elif progressive is not None and amount is not None:
        minimum = reset.minimum.get(progressive.letter)  # none for a table stated by rows
        if minimum is not None and amount < minimum:
            refuse.add(
                f"progressive_reset {_dollars(amount)} is "
                f"under the {_dollars(minimum)} minimum for progressive pay table "
                f"{progressive.letter} ({reset_section})"
            )
    rate = spec.progressive_rate
    if rate is not None and not 0 < rate <= 1:
        refuse.add(
            f"progressive_rate {rate} must be a share of "
            f"each progressive wager, over 0 and at most 1 ({reset_section})"
        )
    choice = allowed.envy
    if (
        choice is not None
        and choice.required_with in paytables
        and not envy
        and not refuse.refused(f"paytables.{choice.slot}")
    ):
        refuse.add(
            f"paytables.{choice.slot} is required with the "
            f"{choice.required_with} wager: the casino selects Envy Bonus table "
            f"{' or '.join(choice.tables)} ({choice.section})"
        )


def _check_payout_limit(refuse: _Refusals, allowed: Configuration, limit: int | None) -> None:
    if limit is None:
        return
    rule = allowed.payout_limit
    if rule is None:
        limited = [r for r in all_rules() if r.configuration.payout_limit is not None]
        sections = ", ".join(_limit_section(r) for r in limited)
        refuse.add(
            f"payout_limit applies to {' and '.join(r.title for r in limited)} only ({sections})"
        )
    elif limit < rule.minimum:
        refuse.add(
            f"payout_limit {_dollars(limit)} is under the "
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
