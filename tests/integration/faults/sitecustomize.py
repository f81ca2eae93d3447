"""A fault for the worker processes of the integration tests: a slow table-state changelog.

Python imports ``sitecustomize`` at start-up from ``sys.path``; the tests put
this directory on a worker's ``PYTHONPATH`` with ``TABLEWATCH_TEST_CHANGELOG_DELAY``
(seconds). Every changelog message then waits that long in Faust's producer
buffer before it is handed to Kafka, longer than the 0.1 s Faust's commit waits
for that buffer: the commit goes on, and only a worker that waits for the
snapshots' delivery itself keeps its committed offsets behind them.
"""

from __future__ import annotations

import os

_DELAY = float(os.environ.get("TABLEWATCH_TEST_CHANGELOG_DELAY") or 0)

if _DELAY > 0:
    import asyncio
    from typing import Any

    from faust.transport.producer import ProducerBuffer

    _send_pending = ProducerBuffer._send_pending

    async def _send_pending_late(self: ProducerBuffer, fut: Any) -> None:
        if fut.message.channel.get_topic_name().endswith("-changelog"):
            await asyncio.sleep(_DELAY)
        await _send_pending(self, fut)

    ProducerBuffer._send_pending = _send_pending_late  # type: ignore[method-assign]
