"""Fuzzing the alerter's HTTP API (acknowledgement, Alertmanager's webhook, the listing) and
the auditor API's acknowledgement route that forwards to it: the alerter's real web app
served on a free port (``tests/alerts/http_rig.py``), the API in process in front of it.

Requests: a route, a credential (none, a malformed header, an unknown token, a token of
each role) and a body (any bytes, any JSON value, mutated acknowledgements and
notifications: labels and levels of any value, nesting deep or not).

What must hold for every request:

- never a 500; every answer is JSON, an ``error`` (alerter) or ``detail`` (API) on a refusal;
- a write (acknowledgement, notification) without a known token is 401, with one of a
  role that may not is 403, and a 401/403 is decided before the body is read (but the
  API's own 413 for an acknowledgement over 16 KiB);
- nothing is written for a refused request: the trail's ``acknowledged`` and
  ``notified`` rows change only with a 200, by one acknowledgement (by the token's
  holder) or by the notification's firing alerts;
- the listing is 200 with a list.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, cast

import httpx
from fastapi.testclient import TestClient
from hypothesis import strategies as st

from tablewatch.api.app import create_app
from tests.alerts.http_rig import ROLES, TOKENS, Served, served
from tests.fuzz.tally import Tally

MAY_ACK = {"dana", "ann"}
MAY_NOTIFY = {"am", "ann"}


class NoRows:
    def run(self, sql: str) -> object:
        raise AssertionError("nothing here reads the store")


@dataclass(frozen=True)
class Request:
    route: str  # ack, ack unknown, notified, list, one, api ack
    credential: str  # none, malformed, or a name of TOKENS
    body: bytes


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


_text = st.text(max_size=40)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=12,
)
_levels = st.sampled_from(["0", "1", "2", "3", "-1", "256", "01", "x", "", "1e2"]) | _text


def _notification(alert_id: str) -> st.SearchStrategy[bytes]:
    labels = st.fixed_dictionaries(
        {"alert_id": st.sampled_from([alert_id, "0" * 20, "x"]) | _text, "escalation": _levels},
        optional={"table_id": _text, "pit": _text, "x": _json_values},
    )
    alert = st.fixed_dictionaries(
        {"status": st.sampled_from(["firing", "resolved", "", "x"]), "labels": labels}
    )
    body = st.fixed_dictionaries(
        {
            "receiver": st.sampled_from(["contact-pm", "contact-sm", "contact-x", ""]),
            "alerts": st.lists(alert, max_size=4),
        },
        optional={"status": _text, "extra": _json_values},
    )
    return body.map(_json)


_acks = st.fixed_dictionaries(
    {},
    optional={
        "note": _text | st.text(st.characters(max_codepoint=0x9F), max_size=20) | _json_values,
        "by": st.sampled_from(["dana", "ann", "sam", ""]) | _text,
        "other": _json_values,
    },
).map(_json)
_deep = st.integers(1, 120_000).map(lambda n: b'{"note": ' + b"[" * n + b"]" * n + b"}")


def requests(alert_id: str) -> st.SearchStrategy[Request]:
    bodies = st.one_of(
        st.binary(max_size=200), _json_values.map(_json), _acks, _notification(alert_id), _deep
    )
    return st.builds(
        Request,
        st.sampled_from(["ack", "ack unknown", "notified", "list", "one", "api ack"]),
        st.sampled_from(["none", "malformed", *TOKENS]),
        bodies,
    )


class AlertsHarness:
    """One alerter served for the whole run, the API in front of it."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self.rig: Served = self._stack.enter_context(served())
        self.client = self._stack.enter_context(httpx.Client(base_url=self.rig.url, timeout=30))
        api = TestClient(create_app(NoRows(), alerter_url=self.rig.url))  # type: ignore[arg-type]
        self.api = self._stack.enter_context(api)

    def close(self) -> None:
        self._stack.close()

    def counts(self) -> tuple[int, int]:
        events = list(self.rig.trail.events)
        return (
            sum(e.kind == "acknowledged" for e in events),
            sum(e.kind == "notified" for e in events),
        )

    def send(self, request: Request) -> httpx.Response:
        headers = {"Content-Type": "application/json"}
        if request.credential == "malformed":
            headers["Authorization"] = "Basic Zm9vOmJhcg=="
        elif request.credential != "none":
            headers["Authorization"] = f"Bearer {TOKENS[request.credential]}"
        alert_id = self.rig.alert.alert_id
        if request.route == "list":
            return self.client.get("/api/v1/alerts")
        if request.route == "one":
            return self.client.get(f"/api/v1/alerts/{alert_id}")
        if request.route == "notified":
            return self.client.post(
                "/api/v1/alertmanager/notified", content=request.body, headers=headers
            )
        target = alert_id if request.route != "ack unknown" else "0" * 20
        path = f"/api/v1/alerts/{target}/ack"
        if request.route == "api ack":
            return cast(httpx.Response, self.api.post(path, content=request.body, headers=headers))
        return self.client.post(path, content=request.body, headers=headers)


def check_request(request: Request, harness: AlertsHarness, tally: Tally) -> None:
    tally.count()
    before = harness.counts()
    answer = harness.send(request)
    after = harness.counts()
    status = answer.status_code
    tally.saw(f"{request.route} {status}")
    assert status != 500, (request, answer.text)
    body = answer.json()  # every answer is JSON
    if request.route in ("list", "one"):
        assert status == 200, (request, answer.text)
        assert isinstance(body, list if request.route == "list" else dict)
        assert after == before
        return
    writes_notified = request.route == "notified"
    known = request.credential in ROLES
    allowed = (MAY_NOTIFY if writes_notified else MAY_ACK) & {request.credential}
    # the API refuses a body over 16 KiB itself, before the alerter sees a bearer token
    too_large_first = request.route == "api ack" and request.credential != "malformed"
    if too_large_first and status == 413:
        pass
    elif not known:
        assert status == 401, (request, answer.text)
        assert "WWW-Authenticate" in answer.headers
    elif not allowed:
        assert status == 403, (request, answer.text)
    if status >= 400:
        reason = body.get("error") if request.route != "api ack" else body.get("detail")
        assert reason, (request, body)
        tally.saw("refused", str(reason))
        assert after == before, (request, answer.text)  # nothing written
        return
    assert status == 200 and allowed, (request, answer.text)
    if writes_notified:
        assert after[0] == before[0] and after[1] - before[1] == body["recorded"]
    else:
        assert after == (before[0] + 1, before[1]), (request, answer.text)
        assert body["acknowledged_by"] == request.credential
        reopen(harness)


def reopen(harness: AlertsHarness) -> None:
    """The alert open and unacknowledged again, for the next acknowledgement (settled
    meanwhile or not: the state alone is the alerter's; the trail keeps what it got)."""
    alerter = harness.rig.alerter
    alerter.alerts[harness.rig.alert.alert_id] = harness.rig.alert


def alerts_requests_target() -> tuple[AlertsHarness, st.SearchStrategy[Request]]:
    harness = AlertsHarness()
    return harness, requests(harness.rig.alert.alert_id)
