"""What every route shares: the documented error answers."""

from __future__ import annotations

from typing import Any

from tablewatch.api.models import Problem, ValidationProblem

UNAVAILABLE: dict[int | str, dict[str, Any]] = {
    500: {"model": Problem, "description": "the API's own statement failed (a bug)"},
    503: {"model": Problem, "description": "the store or the worker is busy or unreachable"},
    504: {"model": Problem, "description": "the engine stopped the statement at its time limit"},
}
INVALID: dict[int | str, dict[str, Any]] = {
    422: {"model": ValidationProblem, "description": "a malformed parameter, named in loc"},
}
TOO_LARGE: dict[int | str, dict[str, Any]] = {
    413: {
        "model": Problem,
        "description": "more events in and around the round than a reconstruction reads "
        "(the round, the count and the cap named), or past the store's result limits",
    },
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": Problem, "description": "no such table, round or run"},
}
