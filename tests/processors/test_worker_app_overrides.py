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


class _Metadata:
    """aiokafka's cluster metadata as far as a snapshot's send reads it."""

    def __init__(self) -> None:
        self.partitions: dict[str, set[int]] = {}


class _Producer:
    """The producer under Faust: ``partitions_for`` asks the broker when the topic is unknown."""

    def __init__(self, metadata: _Metadata) -> None:
        self.metadata = metadata
        self.fetches = 0

    async def partitions_for(self, topic: str) -> set[int]:
        if topic not in self.metadata.partitions:
            self.fetches += 1
            self.metadata.partitions[topic] = {0, 1, 2, 3}
        return self.metadata.partitions[topic]


class _Changelog:
    def get_topic_name(self) -> str:
        return "tablewatch-state-changelog"


class _StateTable:
    """A changelog-backed table whose send partitions eagerly, as Faust's does: with the
    producer's metadata as it is, raising aiokafka's TypeError when the topic is not in it."""

    def __init__(self, metadata: _Metadata) -> None:
        self.metadata = metadata
        self.changelog_topic = _Changelog()
        self.data: dict[bytes, bytes] = {}
        self.sent: list[bytes] = []

    def partition_for_key(self, key: bytes) -> None:
        return None  # use_partitioner: the producer picks

    def send_changelog(self, partition: None, key: bytes, value: bytes) -> asyncio.Future[None]:
        list(self.metadata.partitions.get(self.changelog_topic.get_topic_name()))  # type: ignore[arg-type]
        self.sent.append(key)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done


def test_snapshots_are_saved_after_a_metadata_response_dropped_the_changelog_topic() -> None:
    """A metadata response in which the changelog topic had an error (its leader being
    elected) leaves it out of the producer's metadata until the next refresh, minutes later;
    the worker asks for its partitions again rather than failing every save until then."""
    from types import SimpleNamespace

    from tablewatch.processors.app import Worker

    metadata = _Metadata()
    producer = _Producer(metadata)
    state = _StateTable(metadata)
    worker = Worker.__new__(Worker)
    worker.state = state  # type: ignore[assignment]
    worker.app = SimpleNamespace(  # type: ignore[assignment]
        producer=SimpleNamespace(_ensure_producer=lambda: producer)
    )

    async def scenario() -> None:
        await worker._save_snapshots({"T1": b"one"})
        metadata.partitions.clear()  # the response that dropped it
        await worker._save_snapshots({"T2": b"two"})

    asyncio.run(scenario())
    assert state.sent == [b"T1", b"T2"]
    assert state.data == {b"T1": b"one", b"T2": b"two"}
    assert producer.fetches == 2
