"""``GET /api/v1/rounds`` (filtered, cursor-paginated) and
``/api/v1/rounds/{table_id}/{round_id}`` (the reconstruction)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request

from tablewatch.api import reads
from tablewatch.api.app import NotFound, source_of
from tablewatch.api.filters import ID_MAX, Filters
from tablewatch.api.models import RoundReconstruction, RoundsPage
from tablewatch.api.routes.common import INVALID, NOT_FOUND, TOO_LARGE, UNAVAILABLE
from tablewatch.api.sources import SourceTooLarge
from tablewatch.links import ids_from_raw_path
from tablewatch.rounds.from_store import MAX_EVENTS, load_round
from tablewatch.rounds.report import RoundNotFound, RoundReport, RoundTooLarge

router = APIRouter(prefix="/api/v1", tags=["rounds"])


@router.get("/rounds", response_model=RoundsPage, responses={**INVALID, **UNAVAILABLE})
def list_rounds(request: Request, f: Annotated[Filters, Query()]) -> RoundsPage:
    """Rounds, the latest begun first; ``check`` and ``severity`` keep the rounds with such
    a finding, ``pit`` goes through the table directory."""
    return reads.list_rounds(source_of(request), f)


@router.get(
    "/rounds/{table_id}/{round_id}",
    response_model=RoundReconstruction,
    responses={**NOT_FOUND, **TOO_LARGE, **INVALID, **UNAVAILABLE},
)
def reconstruction(
    request: Request,
    table_id: Annotated[str, Path(max_length=ID_MAX)],
    round_id: Annotated[str, Path(max_length=ID_MAX)],
    start_event_id: Annotated[
        str | None,
        Query(max_length=ID_MAX, description="which round, when the table gave its id twice"),
    ] = None,
) -> dict[str, Any]:
    """The round reconstructed (docs/rounds.md): its timeline, hands, decisions, every
    wager's expected and actual settlement with the pay-table line and section that
    priced it, the findings with their evidence, the video window."""
    return load_report(
        request, *round_ids(request, f"{table_id}/{round_id}"), start_event_id
    ).as_dict()


@router.get("/rounds/{ids:path}", response_model=RoundReconstruction, include_in_schema=False)
def reconstruction_of_ids_with_slash(
    request: Request,
    ids: str,
    start_event_id: Annotated[str | None, Query(max_length=ID_MAX)] = None,
) -> dict[str, Any]:
    """The route above for ids holding a ``/`` (written ``%2F``): the server decodes it
    before it routes, so the path has more than two segments here."""
    return load_report(request, *round_ids(request, ids), start_event_id).as_dict()


def round_ids(request: Request, ids: str) -> tuple[str, str]:
    """The table_id and round_id of the request's path (``ids``: its end as decoded), read
    from the path as it was sent (:func:`tablewatch.links.ids_from_raw_path`); raises
    :class:`NotFound` when the path does not hold two ids."""
    found = ids_from_raw_path(request.scope.get("raw_path"), ids, 2)
    if found is None:
        raise NotFound(
            f"the path {request.url.path!r} does not name one table and one round: write each "
            "id as one segment, a '/' in an id as %2F (/rounds/PIT%2F1/R%2F7)"
        )
    return found[0], found[1]


def load_report(
    request: Request, table_id: str, round_id: str, start_event_id: str | None = None
) -> RoundReport:
    """The reconstruction; 404 for a round the store does not hold, 413 for one with more
    events in and around it than the app's ``max_round_events`` (``serve-api
    --max-round-events``), or whose reads the engine stopped at its result limits."""
    cap = int(getattr(request.app.state, "max_round_events", MAX_EVENTS))
    try:
        return load_round(
            source_of(request), table_id, round_id, start_event_id=start_event_id, max_events=cap
        )
    except RoundNotFound as missing:
        raise NotFound(missing.reason) from None
    except RoundTooLarge as large:
        raise HTTPException(413, large.reason) from None
    except SourceTooLarge as large:
        raise HTTPException(
            413, f"round {round_id!r} of table {table_id}: too large to reconstruct: {large.reason}"
        ) from None
