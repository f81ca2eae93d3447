"""The patterns companion as the worker's child process (an embedded store: the worker's alone).

:class:`PatternsChild` runs in the worker: it reads the companion's checkpoint from the
store, starts the companion in a process of its own (``spawn``: nothing of the worker's
threads, loop or store is inherited) and, for each :class:`Step` the child sends over a
pipe, stores it (:func:`~tablewatch.patterns.companion_store.write_step`, on the worker's
store thread), sends its findings to the ``findings`` topic, then answers the child,
which goes on. The child waits for that answer, so at most one step is in flight and a
step is stored before the next is made. If the child stops, it is started again from the
checkpoint stored last, after :data:`RESTART_SECONDS`; if the worker stops, the child sees
its parent gone and stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import time
from collections.abc import Awaitable, Callable
from functools import partial
from multiprocessing.connection import Connection
from typing import Any, Final, TypeVar

import msgspec
from clickhouse_connect.driver.client import Client

from tablewatch.patterns.companion_loop import CompanionSettings, Step, run_companion
from tablewatch.patterns.companion_store import finding_messages, load_checkpoint, write_step

log = logging.getLogger(__name__)
T = TypeVar("T")

RESTART_SECONDS: Final = 5.0
STORED: Final = b"stored"
_STEP_ENCODER = msgspec.msgpack.Encoder()
_STEP = msgspec.msgpack.Decoder(Step)

OnStore = Callable[[Callable[[], Any]], Awaitable[Any]]  # runs a call on the store thread
Produce = Callable[[list[tuple[bytes, bytes]]], Awaitable[None]]


def child_main(settings: CompanionSettings, checkpoint: bytes | None, conn: Connection) -> None:
    """The child process: the companion, its steps sent to the worker over ``conn``."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    parent = os.getppid()

    class PipeSink:
        def write(self, step: Step) -> None:
            conn.send_bytes(_STEP_ENCODER.encode(step))
            if conn.recv_bytes() != STORED:
                raise RuntimeError("patterns: the worker did not store the step")

    with contextlib.suppress(EOFError, BrokenPipeError, ConnectionResetError):  # worker gone
        run_companion(settings, PipeSink(), checkpoint, lambda: os.getppid() != parent)


class PatternsChild:
    """The worker's side (see the module's docstring); :meth:`metrics` for ``/metrics``."""

    def __init__(
        self,
        settings: CompanionSettings,
        client: Client,
        on_store: OnStore,
        produce: Produce,
    ) -> None:
        self.settings = settings
        self.client = client
        self.on_store = on_store
        self.produce = produce
        self.name = settings.events_topic
        self.steps = 0
        self.findings = 0
        self.rounds = 0
        self.late = 0
        self.lag = 0
        self.restarts = 0
        self._process: multiprocessing.process.BaseProcess | None = None

    async def run(self) -> None:
        """Run the child, storing its steps, until cancelled; start it again if it stops."""
        try:
            while True:
                try:
                    await self._run_once()
                except Exception:
                    log.exception("the patterns companion failed")
                self.restarts += 1
                await asyncio.sleep(RESTART_SECONDS)
        finally:
            self.stop()

    async def _run_once(self) -> None:
        saved = await self.on_store(lambda: load_checkpoint(self.client, self.name))
        revision = saved.revision if saved is not None else 0
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        process = context.Process(
            target=child_main,
            args=(self.settings, saved.state if saved is not None else None, theirs),
            name="tablewatch-patterns",
            daemon=True,
        )
        process.start()
        theirs.close()
        self._process = process
        try:
            while True:
                data = await _received(ours)
                if data is None:
                    log.warning("the patterns companion stopped (exit code %s)", process.exitcode)
                    return
                step = _STEP.decode(data)
                revision += 1
                now_ms = int(time.time() * 1000)
                rows = await self.on_store(
                    partial(write_step, self.client, self.name, revision, step, now_ms)
                )
                if rows:
                    await self.produce(finding_messages(step.findings, rows))
                ours.send_bytes(STORED)
                self.steps += 1
                self.findings += len(step.findings)
                self.rounds, self.late, self.lag = step.rounds, step.late, step.lag
        finally:
            ours.close()
            self.stop()

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.is_alive():
            process.kill()
            process.join(5)

    def metrics(self) -> dict[str, int]:
        return {
            "steps": self.steps,
            "findings": self.findings,
            "rounds": self.rounds,
            "late_rounds": self.late,
            "lag_messages": self.lag,
            "restarts": self.restarts,
        }


async def _received(conn: Connection) -> bytes | None:
    """The next message from the child (None: it closed its end)."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()
    fd = conn.fileno()

    def readable() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await ready
    finally:
        loop.remove_reader(fd)
    try:
        return conn.recv_bytes()
    except (EOFError, OSError):
        return None
