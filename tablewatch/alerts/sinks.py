"""Local receivers of what Alertmanager sends: a mail sink (aiosmtpd) and a webhook
sink (a plain HTTP server), each on a thread, keeping what arrived and when.

Used by ``tablewatch live`` (the demo prints each alert mail as it arrives), the tests
and the benchmark. Loopback only.
"""

from __future__ import annotations

import email
import email.policy
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ALERT_ID = re.compile(r"alert:\s+([0-9a-f]{20})")


@dataclass(frozen=True, slots=True)
class Mail:
    received: float  # time.time()
    sender: str
    to: tuple[str, ...]
    subject: str
    body: str
    raw: str

    def alert_ids(self) -> list[str]:
        return ALERT_ID.findall(self.body)


class MailSink:
    """An SMTP server on 127.0.0.1:``port`` keeping every mail (``mails``)."""

    def __init__(self, port: int, on_mail: Callable[[Mail], None] | None = None) -> None:
        from aiosmtpd.controller import Controller

        self.port = port
        self.mails: list[Mail] = []
        self._lock = threading.Lock()
        self._on_mail = on_mail
        sink = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                sink._take(envelope)
                return "250 OK"

        self._controller = Controller(Handler(), hostname="127.0.0.1", port=port)

    def _take(self, envelope: Any) -> None:
        raw = envelope.content.decode("utf-8", "replace") if isinstance(
            envelope.content, bytes) else str(envelope.content)  # fmt: skip
        message = email.message_from_string(raw, policy=email.policy.default)
        body = ""
        if isinstance(message, EmailMessage):
            part = message.get_body(preferencelist=("plain", "html"))
            body = part.get_content() if part is not None else ""
        mail = Mail(time.time(), str(envelope.mail_from), tuple(envelope.rcpt_tos),
                    str(message.get("Subject", "")), body, raw)  # fmt: skip
        with self._lock:
            self.mails.append(mail)
        if self._on_mail is not None:
            self._on_mail(mail)

    def start(self) -> MailSink:
        self._controller.start()
        return self

    def stop(self) -> None:
        self._controller.stop()

    def to(self, address: str) -> list[Mail]:
        with self._lock:
            return [m for m in self.mails if address in m.to]

    def __enter__(self) -> MailSink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass(frozen=True, slots=True)
class Hook:
    received: float
    path: str
    body: dict[str, Any]


class WebhookSink:
    """An HTTP server on 127.0.0.1:``port`` keeping every JSON POST (``hooks``)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.hooks: list[Hook] = []
        lock = threading.Lock()
        self._lock = lock
        hooks = self.hooks

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {"unreadable": True}
                with lock:
                    hooks.append(Hook(time.time(), self.path, body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self) -> WebhookSink:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def alert_ids(self, path: str | None = None) -> list[str]:
        with self._lock:
            return [
                str(a.get("labels", {}).get("alert_id"))
                for h in self.hooks
                if path is None or h.path == path
                for a in h.body.get("alerts", ())
                if a.get("status") == "firing"
            ]

    def __enter__(self) -> WebhookSink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
