"""``GET /api/v1/rounds`` (filtered, cursor-paginated) and
``/api/v1/rounds/{table_id}/{round_id}`` (the reconstruction)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from tablewatch.api import reads
from tablewatch.api.app import source_of
from tablewatch.api.filters import Filters
from tablewatch.api.models import RoundsPage
from tablewatch.api.routes.common import INVALID, UNAVAILABLE

router = APIRouter(prefix="/api/v1", tags=["rounds"])


@router.get("/rounds", response_model=RoundsPage, responses={**INVALID, **UNAVAILABLE})
def list_rounds(request: Request, f: Annotated[Filters, Query()]) -> RoundsPage:
    """Rounds, the latest begun first; ``check`` and ``severity`` keep the rounds with such
    a finding, ``pit`` goes through the table directory."""
    return reads.list_rounds(source_of(request), f)
