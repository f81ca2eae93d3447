"""The worker's settings, as ``tablewatch worker``'s options give them (no environment is read
here: the options declare their variables)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tablewatch.casework.dispositions import DEFAULT_DISPOSITIONS
from tablewatch.kafka_access import KafkaAccess
from tablewatch.store.client import DEFAULT_DSN
from tablewatch.store.query_limits import QueryLimits
from tablewatch.topics import CHECKPOINTS, PARTITIONS, Topics


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    config_path: Path
    kafka: KafkaAccess = field(default_factory=KafkaAccess)  # bootstrap servers, TLS, SASL
    dsn: str = DEFAULT_DSN
    app_id: str = "tablewatch-worker"
    topics: Topics = field(default_factory=Topics)
    partitions: int = PARTITIONS  # of the events topic, and so of the state table
    web_host: str = "127.0.0.1"  # served on; another host needs an access file
    access_file: Path | None = None  # tokens and roles of /query and /metrics (None: off)
    web_port: int = 6066
    flush_every_ms: int = 250
    rollup_seconds: float = 2.0  # the rollups' refresh period (tablewatch.store.rollups)
    flush_size: int = 2_000
    silence_minutes: float = 15.0
    session_timeout_s: float = 30.0  # how soon a killed worker's partitions are taken over
    event_loop: str = "uvloop"  # or "asyncio"
    log_level: str = "WARN"  # of Faust, aiokafka and the worker (INFO: rebalances, restores)
    # each /query statement's time, rows and memory
    query_limits: QueryLimits = field(default_factory=QueryLimits)
    query_threads: int = 2  # /query statements at once; one more is answered 503
    data_dir: Path = Path(".data/worker")
    # the Ed25519 key that signs the chains' checkpoints (None: chains, no checkpoints)
    checkpoint_key: Path | None = None
    checkpoint_events: int = 1_000  # a checkpoint of a table every this many of its events
    checkpoint_minutes: float = 5.0  # and of its events not yet covered after this long
    # the record kept outside the store: every checkpoint and floor manifest goes to the
    # topic, and to the append-only file when one is named
    checkpoints_topic: str = CHECKPOINTS
    manifest_file: Path | None = None
    # what a case is closed with (the alert rules' casework.dispositions)
    dispositions: tuple[str, ...] = DEFAULT_DISPOSITIONS
    # the patterns across rounds, computed by a child process (tablewatch.patterns.worker_child)
    patterns: bool = False
    patterns_horizon_s: float = 60.0  # rounds read in order once the topic is read this past them
