"""``GET /api/v1/tables``: the floor, one entry per table."""

from __future__ import annotations

from fastapi import APIRouter, Request

from tablewatch.api import reads
from tablewatch.api.app import source_of
from tablewatch.api.models import TablesOut
from tablewatch.api.routes.common import UNAVAILABLE

router = APIRouter(prefix="/api/v1", tags=["tables"])


@router.get("/tables", response_model=TablesOut, responses=UNAVAILABLE)
def list_tables(request: Request) -> TablesOut:
    """Every table: game, pit, cameras, rounds and findings today (UTC), seconds since its
    last stored event."""
    return TablesOut(items=reads.list_tables(source_of(request)))
