"""The list endpoints' query parameters: one pydantic model, for the API and the pages.

Each parameter is checked here (its type, range and shape); a malformed one is a 422
whose ``detail[].loc`` names it. Values reach the SQL only as quoted literals
(:func:`tablewatch.api.reads.literal`), never as text of the statement.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from tablewatch.api.models import Severity
from tablewatch.rules.checks.catalog import CHECKS
from tablewatch.rules.games import names

ID_MAX = 128
TS_PATTERN = (
    r"^(19[7-9][0-9]|2[0-2][0-9]{2})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{3})?Z$"
)
MAX_LIMIT = 1000
CODES = sorted(CHECKS)


def _known_check(code: str | None) -> str | None:
    if code is not None and code not in CHECKS:
        raise ValueError(f"not a check code: {code!r} (the codes: {', '.join(CODES)})")
    return code


def _known_game(game: str | None) -> str | None:
    """A registered game's name (the registry is read when the value is checked)."""
    if game is not None and game not in names():
        raise ValueError(f"not a game: {game!r} (the games: {', '.join(names())})")
    return game


def _instant(ts: str | None) -> str | None:
    """A time the store can hold: a real date (not 31 February), years 1970 to 2299."""
    if ts is None:
        return None
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError(f"not a date and time: {exc}") from None
    if not 1970 <= moment.year <= 2299:
        raise ValueError("years 1970 to 2299 only")
    return ts


def epoch_ms(ts: str) -> int:
    """Milliseconds since the epoch of a time :class:`Filters` accepted."""
    return int(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000 + 0.5)


Time = Annotated[
    str | None,
    Field(
        default=None,
        pattern=TS_PATTERN,
        description="RFC 3339 UTC, like 2026-11-29T18:00:00.000Z (milliseconds optional)",
    ),
    AfterValidator(_instant),
]


class Filters(BaseModel):
    """``table, pit, game, check, severity, dealer, since, until, limit, cursor``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: Annotated[str | None, Field(max_length=ID_MAX, description="a table_id")] = None
    pit: Annotated[str | None, Field(max_length=ID_MAX, description="a pit's name")] = None
    game: Annotated[
        str | None,
        Field(
            max_length=64,
            description="a game, by the name the protocol gives it",
            json_schema_extra={"enum": list(names())},
        ),
        AfterValidator(_known_game),
    ] = None
    check: Annotated[
        str | None,
        Field(max_length=64, description="a check code", json_schema_extra={"enum": CODES}),
        AfterValidator(_known_check),
    ] = None
    severity: Severity | None = None
    dealer: Annotated[str | None, Field(max_length=ID_MAX, description="a dealer_id")] = None
    since: Time = None
    until: Time = None
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="rows per page")] = 100
    cursor: Annotated[
        str | None,
        Field(
            max_length=512,
            pattern=r"^[A-Za-z0-9_-]+$",
            description="next_cursor of the page before",
        ),
    ] = None


def from_form(params: Mapping[str, str]) -> Filters:
    """The filters of a page's form: empty fields are not given (raises ValidationError)."""
    return Filters.model_validate({k: v for k, v in params.items() if v != ""})
