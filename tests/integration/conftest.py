"""Integration tests use the real broker started by ``deploy/kafka.sh`` (the test command does)."""

from __future__ import annotations

import os
import socket

import pytest


def bootstrap() -> str:
    return f"127.0.0.1:{os.environ.get('KAFKA_PORT', '9092')}"


@pytest.fixture(scope="session")
def kafka_bootstrap() -> str:
    host, port = bootstrap().split(":")
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
    except OSError:
        pytest.fail(
            f"no Kafka broker at {bootstrap()}: run `deploy/kafka.sh start` (make test does)"
        )
    return bootstrap()
