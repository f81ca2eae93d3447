"""The alerter's real web app, served on a free port in a thread, over an alerter with
recording fakes (Alertmanager, trail) and a gate over an access file of known tokens."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from tablewatch.access.access_file import AccessEntry, AccessFile
from tablewatch.access.authenticate import TokenAuthenticator
from tablewatch.access.gate import Gate
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token
from tablewatch.alerts.alerter import Alerter
from tablewatch.alerts.model import Alert
from tablewatch.alerts.service import web_app
from tablewatch.services import free_port
from tests.alerts.test_alerter_clock import RULES, Clock, FakeAlertmanager, FakeTrail
from tests.alerts.test_convert import RAISED, message

# a token per holder, named by its holder; "nobody" is in no access file
TOKENS = {
    "dana": "tw_dana-floor-manager",  # floor_manager
    "ann": "tw_ann-admin",  # admin
    "sam": "tw_sam-surveillance",  # surveillance: may not acknowledge
    "am": "tw_am-alertmanager",  # alertmanager: the webhook only
    "nobody": "tw_not-in-the-file",
}
ROLES = {
    "dana": Role.FLOOR_MANAGER,
    "ann": Role.ADMIN,
    "sam": Role.SURVEILLANCE,
    "am": Role.ALERTMANAGER,
}


class RigTrail(FakeTrail):
    """Records, and reads an alert's history back as the trail's ``history`` does."""

    def history(self, alert_id: str) -> list[dict[str, Any]]:
        return [
            {"kind": e.kind, "escalation": e.escalation, "receiver": e.receiver, "by": e.by,
             "note": e.note}
            for e in self.events
            if e.alert_id == alert_id
        ]  # fmt: skip


def bearer(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[name]}"}


def access_file() -> AccessFile:
    created = datetime(2025, 1, 1, tzinfo=UTC)
    return AccessFile(
        tuple(AccessEntry(n, r, hash_token(TOKENS[n]), created) for n, r in ROLES.items())
    )


def gate() -> Gate:
    return Gate(TokenAuthenticator(access_file()))


def new_alerter(trail: FakeTrail | None = None) -> tuple[Alerter, FakeTrail, Alert]:
    """An alerter (clock one minute after the raise) holding one open alert."""
    trail = trail if trail is not None else RigTrail()
    alerter = Alerter(RULES, FakeAlertmanager(), trail, clock=Clock(RAISED + 60_000))
    alerter.ready = True
    alert = alerter.alert_for(message(), RAISED)
    assert alert is not None
    return alerter, trail, alert


@dataclass
class Served:
    url: str
    alerter: Alerter
    trail: FakeTrail
    alert: Alert


@contextmanager
def served(trail: FakeTrail | None = None, with_gate: Gate | None = None) -> Iterator[Served]:
    alerter, trail, alert = new_alerter(trail)
    port = free_port()
    loop = asyncio.new_event_loop()

    async def serve() -> web.AppRunner:
        await alerter.raise_alerts([alert], None)
        runner = web.AppRunner(web_app(alerter, with_gate or gate()))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        return runner

    runner = loop.run_until_complete(serve())
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield Served(f"http://127.0.0.1:{port}", alerter, trail, alert)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.run_until_complete(runner.cleanup())
        loop.close()
