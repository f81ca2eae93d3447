"""``/login`` and ``/logout``: the pages' session, a cookie holding the caller's token.

``POST /login`` checks the token against serve-api's access file and sets the cookie
``tablewatch_session`` (HttpOnly: no script reads it; SameSite=Strict: no other site's
page sends it; Secure over HTTPS); the casework routes accept it as they accept
``Authorization: Bearer`` (:mod:`tablewatch.api.callers`). ``POST /logout`` clears it.
Both refuse a form another site posted (its ``Origin``): :func:`cross_site`.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from tablewatch.access.authenticate import AccessUnavailable, Unauthenticated
from tablewatch.api.callers import SESSION_COOKIE, gate_of
from tablewatch.api.routes.pages import _page

router = APIRouter(include_in_schema=False)
MAX_FORM_BYTES: Final = 8 * 1024


def cross_site(request: Request) -> str | None:
    """The other site a sign-in or sign-out form was posted from, or None. A browser sends
    ``Origin`` with a form's POST; another site's page signing a visitor in (with the
    attacker's token: what the visitor then does is the attacker's) or out is refused.
    Without ``Origin`` (a client that is no browser) the request is taken. This site is
    the request's ``Host``, or behind a proxy that rewrites it, ``X-Forwarded-Host``."""
    origin = request.headers.get("origin")
    if origin is None:
        return None
    forwarded = request.headers.get("x-forwarded-host", "").split(",")[0].strip()
    here = {request.headers.get("host", ""), forwarded} - {""}
    if urlsplit(origin).netloc in here:
        return None
    return origin


def _next(target: str | None) -> str:
    """Where to go after signing in: a path of this site only (never //host or a URL)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/"


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, next: str = "/") -> HTMLResponse:
    return _page(request, "login.html", next=_next(next), reason=None, signed_in=None)


def _refused(request: Request, status: int, reason: str, target: str = "/") -> HTMLResponse:
    """The sign-in page again, with ``status`` and why."""
    return _page(request, "login.html", status, next=target, signed_in=None, reason=reason)


@router.post("/login")
async def login(request: Request) -> Response:
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return _refused(request, 413, "the form is too large")
    origin = cross_site(request)
    if origin is not None:
        return _refused(
            request, 403, f"not signed in: the form was sent from another site ({origin})"
        )
    form = parse_qs(body.decode("utf-8", "replace"), max_num_fields=10)
    token = (form.get("token") or [""])[0].strip()
    target = _next((form.get("next") or ["/"])[0])
    gate = gate_of(request)
    if gate is None or gate.authenticator is None:
        reason = "sign-in is off: serve-api was started without an access file"
        return _refused(request, 503, reason, target)
    try:
        principal = await gate.authenticator.authenticate(token)
    except Unauthenticated as exc:
        return _refused(request, 401, f"not signed in: {exc.reason}", target)
    except AccessUnavailable as exc:
        return _refused(request, 503, f"not signed in: {exc.reason}", target)
    answer = RedirectResponse(target, status_code=303)
    answer.set_cookie(
        SESSION_COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
        expires=principal.expires,
    )
    return answer


@router.post("/logout")
def logout(request: Request) -> Response:
    origin = cross_site(request)
    if origin is not None:
        return _refused(
            request, 403, f"not signed out: the form was sent from another site ({origin})"
        )
    answer = RedirectResponse("/login", status_code=303)
    answer.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    return answer
