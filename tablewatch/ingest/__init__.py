"""Getting events in: JSON Lines files, the HTTP endpoint, the Kafka producer.

- ``files``: reading JSON Lines for the audit command.
- ``batch``: the pure step: split a batch, validate, classify (accepted,
  duplicate, rejected), dead-letter records, the duplicate window.
- ``service``: ``Ingestor``, one path for HTTP bodies and files: classify,
  deliver, remember.
- ``sink`` / ``kafka_producer``: where accepted events and dead letters go.
- ``http_server``: the aiohttp app (``POST /events``, ``/health``, ``/metrics``),
  served within ``limits`` (connections, timeouts, the work queue).
- ``client``: posting events to it (``post_events``, ``BatchPoster``).

See docs/ingest.md.
"""
