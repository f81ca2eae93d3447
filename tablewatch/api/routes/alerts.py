"""``POST /api/v1/alerts/{alert_id}/ack``: an acknowledgement, forwarded to the alerter.

The API writes nothing of its own: the alerter records the acknowledgement in its trail,
silences and resolves the alert in Alertmanager (``docs/alerts.md``). Included when the
app is given the alerter's URL (``serve-api --alerter``).
"""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

router = APIRouter(prefix="/api/v1", tags=["alerts"])


class Acknowledgement(BaseModel):
    by: str = Field(min_length=1, max_length=200, description="Who acknowledges.")
    note: str = Field(default="", max_length=2000, description="What was done.")


class AckAnswer(BaseModel):
    alert_id: str
    acknowledged_by: str | None
    acknowledged_at: str | None
    summary: str
    open: bool


@router.post(
    "/alerts/{alert_id}/ack",
    response_model=AckAnswer,
    responses={
        404: {"description": "no such alert"},
        409: {"description": "already acknowledged"},
        503: {"description": "the alerter cannot be reached"},
    },
)
async def acknowledge(alert_id: str, ack: Acknowledgement, request: Request) -> Any:
    """Acknowledge an alert: it stops escalating and is silenced in Alertmanager."""
    base = str(request.app.state.alerter_url).rstrip("/")
    try:
        async with httpx.AsyncClient(timeout=10) as client:
            answer = await client.post(
                f"{base}/api/v1/alerts/{alert_id}/ack", json=ack.model_dump()
            )
    except httpx.HTTPError as exc:
        return JSONResponse(
            {"detail": f"the alerter at {base} cannot be reached: {exc}"},
            status_code=503,
            headers={"Retry-After": "5"},
        )
    try:
        body = answer.json()
    except ValueError:
        body = {"error": answer.text}
    if answer.status_code >= 400:
        detail = body.get("error", body) if isinstance(body, dict) else body
        return JSONResponse({"detail": detail}, status_code=answer.status_code)
    return AckAnswer(**{k: body.get(k) for k in AckAnswer.model_fields})
