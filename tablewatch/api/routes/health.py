"""``GET /health``: whether the store answers through the API's source."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tablewatch.api.app import source_of
from tablewatch.api.models import Health
from tablewatch.api.sources import SourceError

router = APIRouter()


@router.get("/health", response_model=Health, responses={503: {"model": Health}})
def health(request: Request) -> Health | JSONResponse:
    where = str(request.app.state.described_as)
    try:
        source_of(request).run("SELECT count() FROM rounds_v WHERE 0")
    except SourceError as exc:
        body = Health(status=f"the store does not answer: {exc.reason}", source=where)
        return JSONResponse(body.model_dump(), status_code=503, headers={"Retry-After": "5"})
    return Health(status="ok", source=where)
