"""The replay tests that read Kafka use the integration tests' broker fixture."""

from tests.integration.conftest import kafka_bootstrap

__all__ = ["kafka_bootstrap"]
