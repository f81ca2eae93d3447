"""A fault for the worker processes of the integration tests: a slow table-state changelog.

Python imports ``sitecustomize`` at start-up from ``sys.path``; the tests put
this directory on a worker's ``PYTHONPATH`` with ``TABLEWATCH_TEST_CHANGELOG_DELAY``
(seconds). Every changelog record (a table's snapshot, a partition's restore
fence) is then delivered that much later than the broker would acknowledge it:
only a worker whose commit waits for its snapshots' delivery keeps its committed
offsets behind them.
"""

from __future__ import annotations

import os

_DELAY = float(os.environ.get("TABLEWATCH_TEST_CHANGELOG_DELAY") or 0)

if _DELAY > 0:
    import asyncio
    from collections.abc import Awaitable
    from typing import Any

    from tablewatch.processors.changelog import Changelog

    _send = Changelog._send

    async def _late(delivery: Awaitable[Any]) -> Any:
        await asyncio.sleep(_DELAY)
        return await delivery

    async def _send_late(self: Changelog, partition: int, key: bytes, value: bytes) -> Any:
        return asyncio.ensure_future(_late(await _send(self, partition, key, value)))

    Changelog._send = _send_late  # type: ignore[method-assign]
