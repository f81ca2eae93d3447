"""``POST /api/v1/alerts/{alert_id}/ack``: an acknowledgement, forwarded to the alerter.

The API writes nothing of its own: the alerter records the acknowledgement in its trail,
silences and resolves the alert in Alertmanager (``docs/alerts.md``). Included when the
app is given the alerter's URL (``serve-api --alerter``).

The caller's bearer token is required (401 here without one) and forwarded as it is, with
the body as sent (at most 16 KiB, 413 over it): the alerter authenticates the token with
its access file, checks the role (``ack_alert``: 403 otherwise) before it reads the body,
checks the body (400, 422) and records the token's holder as who acknowledged. The API
holds no credential of its own for this, so it can make nobody acknowledge under
another's name; :class:`Acknowledgement` documents the body (OpenAPI), the alerter
decides (``tablewatch/alerts/bodies.py``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from tablewatch.access.authenticate import Unauthenticated
from tablewatch.access.gate import REALM, bearer_token
from tablewatch.alerts.bodies import MAX_ACK_BYTES

router = APIRouter(prefix="/api/v1", tags=["alerts"])
MAX_FORWARDED_AUTHORIZATION = 4200  # "Bearer " and a token (tokens.MAX_TOKEN_LENGTH)


class Acknowledgement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str = Field(
        default="",
        max_length=2000,
        description="What was done (no control characters but tab and line feed).",
    )
    by: str | None = Field(
        default=None,
        max_length=200,
        description="Optional: the caller's own name; who acknowledged is always the bearer "
        "token's holder, and a different name is refused (422).",
    )


class AckAnswer(BaseModel):
    alert_id: str
    acknowledged_by: str | None
    acknowledged_at: str | None
    summary: str
    open: bool


@router.post(
    "/alerts/{alert_id}/ack",
    response_model=AckAnswer,
    openapi_extra={
        "requestBody": {
            "required": False,
            "content": {"application/json": {"schema": Acknowledgement.model_json_schema()}},
        }
    },
    responses={
        400: {"description": "the body refused (the reason says why)"},
        401: {"description": "no bearer token, or one the alerter does not know"},
        403: {"description": "the token's role may not acknowledge (floor_manager, admin may)"},
        404: {"description": "no such alert"},
        409: {"description": "already acknowledged (the answer says by whom)"},
        413: {"description": "a body over 16 KiB"},
        422: {"description": "a by that is not the caller"},
        503: {"description": "the alerter cannot be reached"},
    },
)
async def acknowledge(
    alert_id: str,
    request: Request,
    authorization: str | None = Header(default=None, include_in_schema=False),
) -> Any:
    """Acknowledge an alert as the bearer token's holder: it stops escalating and is
    silenced in Alertmanager. ``Authorization: Bearer TOKEN`` is required."""
    if not authorization or not authorization.strip():
        return JSONResponse(
            {"detail": "unauthenticated: no bearer token: send Authorization: Bearer <token>"},
            status_code=401,
            headers={"WWW-Authenticate": f'Bearer realm="{REALM}"'},
        )
    try:
        bearer_token(authorization)  # its shape: the alerter knows the tokens
        well_formed = len(authorization) <= MAX_FORWARDED_AUTHORIZATION
    except Unauthenticated:
        well_formed = False
    if not well_formed:
        return JSONResponse(
            {"detail": "unauthenticated: the Authorization header is not Bearer <token>"},
            status_code=401,
            headers={"WWW-Authenticate": f'Bearer realm="{REALM}", error="invalid_token"'},
        )
    forwarded = bytearray()
    async for chunk in request.stream():
        forwarded += chunk
        if len(forwarded) > MAX_ACK_BYTES:
            return JSONResponse(
                {"detail": f"the body is over {MAX_ACK_BYTES:,} bytes"}, status_code=413
            )
    base = str(request.app.state.alerter_url).rstrip("/")
    try:
        async with httpx.AsyncClient(timeout=10) as client:
            answer = await client.post(
                f"{base}/api/v1/alerts/{quote(alert_id, safe='')}/ack",
                content=bytes(forwarded),
                headers={"Authorization": authorization, "Content-Type": "application/json"},
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
        headers = {k: v for k, v in answer.headers.items() if k.lower() == "www-authenticate"}
        return JSONResponse({"detail": detail}, status_code=answer.status_code, headers=headers)
    return AckAnswer(**{k: body.get(k) for k in AckAnswer.model_fields})
