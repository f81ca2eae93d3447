"""``GET /api/v1/findings``: findings, filtered, newest first, cursor-paginated."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from tablewatch.api import reads
from tablewatch.api.app import source_of
from tablewatch.api.filters import Filters
from tablewatch.api.models import FindingsPage
from tablewatch.api.routes.common import INVALID, UNAVAILABLE

router = APIRouter(prefix="/api/v1", tags=["findings"])


@router.get("/findings", response_model=FindingsPage, responses={**INVALID, **UNAVAILABLE})
def list_findings(request: Request, f: Annotated[Filters, Query()]) -> FindingsPage:
    """Findings newest first (a table-level finding by its judgement time); ``pit`` and
    ``game`` through the table directory, ``dealer`` through the finding's round."""
    return reads.list_findings(source_of(request), f)
