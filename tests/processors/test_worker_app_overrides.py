"""The worker app's own overrides of Faust (``processors/app.py``): no statistics sensor, and
the events topic's bytes as received."""

from __future__ import annotations

import asyncio

import faust

from tablewatch.processors.app import _App, _AsReceived
from tests.processors.faust_consumers import EVENTS, message


def _sensors_after_init(cls: type[faust.App]) -> tuple[bool, bool]:
    """(the Monitor among the app's sensors, among its dependencies) once Faust set them up."""

    async def scenario() -> tuple[bool, bool]:
        app = cls("tablewatch-unit", broker="kafka://127.0.0.1:1", store="memory://")
        dependencies = list(app.on_init_dependencies())  # what Faust calls when it starts
        return app.monitor in app.sensors, app.monitor in dependencies

    return asyncio.run(scenario())


def test_the_worker_app_runs_without_faust_statistics_sensor() -> None:
    assert _sensors_after_init(faust.App) == (True, True)  # Faust's own adds the Monitor
    assert _sensors_after_init(_App) == (False, False)


def test_the_events_are_handed_over_as_the_bytes_received() -> None:
    async def scenario() -> tuple[bytes | None, bytes, bytes]:
        app = _App("tablewatch-unit", broker="kafka://127.0.0.1:1", store="memory://")
        schema = _AsReceived()
        received = message(EVENTS, 0, 7)
        received.key, received.value = b"T1\xff", b'{"v": 1}'
        empty = message(EVENTS, 0, 8)
        empty.value = None  # a tombstone: the processor dead-letters it as bad JSON
        return (
            schema.loads_key(app, received),
            schema.loads_value(app, received),
            schema.loads_value(app, empty),
        )

    assert asyncio.run(scenario()) == (b"T1\xff", b'{"v": 1}', b"")
