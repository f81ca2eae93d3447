"""The worker's Faust app hosts the web views, timers and tasks, but starts no Faust
consumer: the events are read by the worker's own loop, in the same group (a Faust consumer
would join it too, with Faust's assignor)."""

from __future__ import annotations

import asyncio

import faust

from tablewatch.processors.app import _App


def _services(cls: type[faust.App]) -> tuple[bool, bool, bool]:
    """(Faust's consumer, its topic conductor, its table manager) among what the app starts."""

    async def scenario() -> tuple[bool, bool, bool]:
        app = cls("tablewatch-unit", broker="kafka://127.0.0.1:1", store="memory://")
        started = {id(s) for s in app.on_init_dependencies()}  # what Faust starts
        return id(app.consumer) in started, id(app.topics) in started, id(app.tables) in started

    return asyncio.run(scenario())


def test_the_worker_app_starts_no_faust_consumer() -> None:
    assert _services(faust.App) == (True, True, True)  # Faust's own starts all three
    assert _services(_App) == (False, False, False)
