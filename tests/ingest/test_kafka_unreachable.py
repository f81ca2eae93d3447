"""The Kafka sink with no broker (a closed port): the batch fails fast and nothing is remembered."""

from __future__ import annotations

import socket
import time

import pytest

from tablewatch.ingest.kafka_producer import KafkaSettings, KafkaSink
from tablewatch.ingest.service import DeliveryFailed, Ingestor
from tablewatch.kafka_access import KafkaAccess
from tests.ingest.events import array, table_events


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_no_broker_fails_the_batch_within_the_timeout() -> None:
    bootstrap = f"127.0.0.1:{closed_port()}"
    sink = KafkaSink(KafkaSettings(KafkaAccess(bootstrap), delivery_timeout_s=1.0))
    ingestor = Ingestor(sink)
    started = time.monotonic()
    with pytest.raises(DeliveryFailed) as info:
        ingestor.ingest_body(array(table_events("T-1")), "test")
    assert time.monotonic() - started < 10
    assert info.value.reason.startswith(f"Kafka at {bootstrap}: ")
    assert len(ingestor.window) == 0
    health = sink.health()
    assert (health["ok"], health["reachable"]) == (False, False)
    assert health["last_error"] == info.value.reason
    sink.close()
