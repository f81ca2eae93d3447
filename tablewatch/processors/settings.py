"""The worker's settings: command-line options over environment variables over defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tablewatch.store.client import DEFAULT_DSN
from tablewatch.store.query_limits import QueryLimits


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    config_path: Path
    bootstrap: str = os.environ.get("TABLEWATCH_KAFKA", "127.0.0.1:9092")
    dsn: str = os.environ.get("TABLEWATCH_DSN", DEFAULT_DSN)
    app_id: str = "tablewatch-worker"
    events_topic: str = "table-events"
    dlq_topic: str = "table-events-dlq"
    rounds_topic: str = "rounds"
    findings_topic: str = "findings"
    partitions: int = 4
    web_host: str = "127.0.0.1"  # served on; another host needs an access file
    access_file: Path | None = None  # tokens and roles of /query and /metrics (None: off)
    web_port: int = 6066
    flush_every_ms: int = 250
    flush_size: int = 2_000
    silence_minutes: float = 15.0
    session_timeout_s: float = 30.0  # how soon a killed worker's partitions are taken over
    event_loop: str = "uvloop"  # or "asyncio"
    log_level: str = "WARN"  # of Faust, aiokafka and the worker (INFO: rebalances, restores)
    # each /query statement's time, rows and memory
    query_limits: QueryLimits = field(default_factory=QueryLimits)
    query_threads: int = 2  # /query statements at once; one more is answered 503
    data_dir: Path = Path(os.environ.get("TABLEWATCH_WORKER_DIR", ".data/worker"))
