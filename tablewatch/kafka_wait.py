"""Waiting at start for Kafka to be reachable: tries with backoff, one line for each, then
a one-line reason for giving up.

A service that cannot reach Kafka when it starts (the worker, ``tablewatch ingest``,
``serve-ingest``, ``tablewatch live``) tries again, 0.5 s after the first failure,
doubling to 8 s, each failure logged as one line with its reason; after ``wait_s``
seconds it gives up (:class:`KafkaUnreachable`, which the commands turn into one line on
stderr and exit code 2). A try is what the service's own client does to start (so a
refused login or certificate counts as not reachable, with its reason): kafka-python's
producer for ingest, an aiokafka client's bootstrap for the worker. The client
libraries' own log lines during a try are kept back, the first error of them being
the reason; when no bootstrap server accepts a connection at all, the reason is that.
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tablewatch.kafka_access import KafkaAccess, host_port

log = logging.getLogger("tablewatch.kafka")
FIRST_PAUSE_S = 0.5
MAX_PAUSE_S = 8.0
MAX_TRY_S = 10.0  # one try's own timeout, at most
_CLIENT_LOGGERS = ("kafka", "aiokafka")
_OBJECT_PREFIX = re.compile(r"^<[^>]*>:\s*")  # kafka-python's "<KafkaConnection ...>: "

Attempt = Callable[[float], None]  # one try, given its timeout in seconds; raises on failure


class KafkaUnreachable(Exception):
    """Kafka was not reachable for as long as the wait allowed; the message is one line."""


def wait_for_kafka(
    access: KafkaAccess,
    attempt: Attempt,
    wait_s: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Try ``attempt`` until it succeeds (the number of tries) or ``wait_s`` has passed
    (:class:`KafkaUnreachable`)."""
    deadline = clock() + wait_s
    pause = FIRST_PAUSE_S
    tries = 0
    while True:
        tries += 1
        reason = _try(access, attempt, max(1.0, min(MAX_TRY_S, deadline - clock())))
        if reason is None:
            if tries > 1:
                log.warning("Kafka at %s reachable after %d tries", access.bootstrap, tries)
            return tries
        left = deadline - clock()
        if left <= 0:
            raise KafkaUnreachable(
                f"Kafka at {access.bootstrap} not reachable: gave up after {wait_s:g} s "
                f"(--kafka-wait) and {tries} {'try' if tries == 1 else 'tries'}: {reason}"
            )
        step = min(pause, left)
        log.warning(
            "Kafka at %s not reachable (%s); trying again in %.1f s",
            access.bootstrap, reason, step,
        )  # fmt: skip
        sleep(step)
        pause = min(pause * 2, MAX_PAUSE_S)


def _try(access: KafkaAccess, attempt: Attempt, timeout_s: float) -> str | None:
    """None if the try succeeded, else why not (one line, no password)."""
    refused = connection_refused(access, min(2.0, timeout_s))
    if refused is not None:
        return access.redact(refused)
    with client_logs_kept() as kept:
        try:
            attempt(timeout_s)
            return None
        except Exception as exc:
            reason = kept.first_error() or f"{type(exc).__name__}: {exc}"
    return access.redact(" ".join(reason.split()))


def connection_refused(access: KafkaAccess, timeout_s: float) -> str | None:
    """Why no bootstrap server accepts a TCP connection, or None when one does."""
    reasons = []
    for server in access.servers:
        host, port = host_port(server)
        try:
            socket.create_connection((host, port), timeout=timeout_s).close()
            return None
        except OSError as exc:
            reasons.append(f"{server}: {exc.strerror or exc or type(exc).__name__}")
    return "; ".join(reasons)


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def first_error(self) -> str | None:
        """The first error the client logged (the cause; what follows is its consequences:
        connection lost, bootstrap failed), else its first warning."""
        for level in (logging.ERROR, logging.WARNING):
            for record in self.records:
                if record.levelno >= level:
                    try:
                        return _OBJECT_PREFIX.sub("", record.getMessage())
                    except Exception:  # a record that cannot be formatted is no reason
                        continue
        return None


@contextmanager
def client_logs_kept() -> Iterator[_Kept]:
    """The client libraries' log records (warnings and errors) kept, not shown."""
    kept = _Kept()
    loggers = [logging.getLogger(name) for name in _CLIENT_LOGGERS]
    saved = [(logger.propagate, logger.level) for logger in loggers]
    for logger in loggers:
        logger.addHandler(kept)
        logger.propagate = False
        if logger.getEffectiveLevel() > logging.WARNING:
            logger.setLevel(logging.WARNING)
    try:
        yield kept
    finally:
        for logger, (propagate, level) in zip(loggers, saved, strict=True):
            logger.removeHandler(kept)
            logger.propagate = propagate
            logger.setLevel(level)


@contextmanager
def logged_to_stderr() -> Iterator[None]:
    """While waiting, the tries' lines on stderr, when logging is not set up yet."""
    if logging.getLogger().handlers or log.handlers:
        yield
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


def aiokafka_attempt(access: KafkaAccess) -> Attempt:
    """A try as the worker's clients start: an aiokafka client's bootstrap (a metadata
    request, after TLS and SASL), on an event loop of its own."""

    def attempt(timeout_s: float) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(asyncio.wait_for(_bootstrap(access, timeout_s), timeout_s))
        finally:
            loop.close()

    return attempt


async def _bootstrap(access: KafkaAccess, timeout_s: float) -> None:
    from aiokafka.client import AIOKafkaClient

    params: dict[str, Any] = access.aiokafka()
    client = AIOKafkaClient(
        client_id="tablewatch-wait", request_timeout_ms=int(timeout_s * 1000), **params
    )
    try:
        await client.bootstrap()
    finally:
        await client.close()
