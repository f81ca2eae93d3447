"""The worker: consume ``table-events`` in batches, judge rounds, write the store and topics.

The Faust app hosts it (web views /health, /metrics, /query, timers, tasks);
the events are read by a plain aiokafka consumer loop run as one of its tasks
(:mod:`.consumer_loop`). Processing guarantee: at least once, made harmless by
idempotent sinks.
- Each batch is written in order: ClickHouse rows, then the
  ``rounds``/``findings``/dead-letter messages, then the tables' snapshots and
  the partitions' restore fences (the changelog), then the commit
  (:mod:`.commit_step`, the one place that commits). A round's messages wait
  for its end. The committed offset therefore never passes an event whose
  effects are not stored, so a killed worker re-reads what it had not finished.
- Each table's state between rounds lives in the changelog topic
  ``<app_id>-tablewatch-table-state-changelog`` (:mod:`.changelog`), read back
  when its partition is assigned.
- Re-delivered events are recognised by event_id; ClickHouse tables are
  ReplacingMergeTree keyed by stable ids, so a replay never shows twice.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import socket
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import faust
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from faust.app.base import BootStrategy

from tablewatch.casework.desk import CaseDesk
from tablewatch.config_file import load_config, table_entries
from tablewatch.integrity.checkpoints import CheckpointPolicy, publish_key
from tablewatch.integrity.keys import load_signer
from tablewatch.integrity.manifest import ManifestFile
from tablewatch.patterns.companion_loop import CompanionSettings
from tablewatch.patterns.worker_child import PatternsChild
from tablewatch.processors.access_control import AccessSettings, WorkerAccess
from tablewatch.processors.batch_writer import BatchWriter, Sinks
from tablewatch.processors.changelog import Changelog, changelog_topic, key_partition
from tablewatch.processors.commit_step import Ticket
from tablewatch.processors.consumer_loop import EventsLoop, consumer_settings
from tablewatch.processors.processor import FlushBatch, LiveProcessor
from tablewatch.processors.restore_fence import is_fence_key
from tablewatch.processors.settings import WorkerSettings
from tablewatch.processors.state_codec import chain_partition
from tablewatch.processors.web import install_views, readiness
from tablewatch.store.client import connect
from tablewatch.store.dsn import EmbeddedDsn, parse_dsn
from tablewatch.store.migrate import migrate
from tablewatch.store.query_pool import QueryPool
from tablewatch.store.read_only import open_reader
from tablewatch.store.rollups import RollupRefresher
from tablewatch.store.table_directory import directory_rows, write_directory
from tablewatch.store.table_paytables import paytable_rows, write_paytables
from tablewatch.store.theoretical import fill_configured
from tablewatch.store.writer import StoreWriter

T = TypeVar("T")

log = logging.getLogger("tablewatch.worker")


class _HostOnly(BootStrategy):
    """Faust's services without its consumer (nor its agents' conductor and tables): the
    events are read by the worker's own loop (:mod:`.consumer_loop`), and a Faust consumer
    would join the same group."""

    enable_kafka_consumer = False


class _App(faust.App):
    BootStrategy = _HostOnly


def broker_settings(settings: WorkerSettings) -> dict[str, Any]:
    """Faust's ``broker`` and ``broker_credentials``: Faust gives every aiokafka client it
    makes (the consumer, the state table's consumer, the producer, topic creation) the
    security parameters of the credentials (:meth:`KafkaAccess.faust_credentials`)."""
    kafka = settings.kafka
    return {"broker": kafka.faust_broker(), "broker_credentials": kafka.faust_credentials()}


class Worker:
    """The app and everything it holds: processor, store, executor, counters."""

    def __init__(self, settings: WorkerSettings) -> None:
        self.settings = settings
        self.configs = load_config(settings.config_path)
        # who may use the web views (refuses a non-loopback host without an access file)
        self.access = WorkerAccess(AccessSettings(settings.web_host, settings.access_file))
        self.app = _App(
            settings.app_id,
            **broker_settings(settings),
            store="memory://",
            topic_partitions=settings.partitions,
            datadir=str(settings.data_dir),
            web_host=settings.web_host,
            web_bind=settings.web_host,
            web_port=settings.web_port,
            topic_allow_declare=True,
        )
        raw: dict[str, Any] = {"key_type": bytes, "value_type": bytes}
        topics = settings.topics
        # declared by Faust's admin calls (topic_allow_declare); sent to by the worker's producer
        self.rounds_topic = self.app.topic(topics.rounds, **raw)
        self.findings_topic = self.app.topic(topics.findings, **raw)
        self.dlq_topic = self.app.topic(topics.dead_letters, **raw)
        self.checkpoints_topic = self.app.topic(settings.checkpoints_topic, **raw)
        # the tables' saved states: compacted, partitioned like the events (.changelog)
        self.changelog_topic = self.app.topic(
            changelog_topic(settings.app_id),
            partitions=settings.partitions,
            compacting=True,
            deleting=False,
            internal=True,
            **raw,
        )
        # made on the event loop, by the consume task (aiokafka's clients need a running loop)
        self.producer: AIOKafkaProducer | None = None
        self.changelog: Changelog | None = None
        self.events: EventsLoop | None = None
        # read before anything starts: a key that cannot be read stops the worker here
        signer = load_signer(settings.checkpoint_key) if settings.checkpoint_key else None
        self.manifest_file = (
            ManifestFile(settings.manifest_file) if settings.manifest_file is not None else None
        )
        self.started = time.time()
        # names this process's manifests: a restarted worker starts a chain of its own
        self.writer_id = f"{socket.gethostname()}:{os.getpid()}:{int(self.started * 1000)}"
        self._last_round = 0.0  # monotonic time of the last checkpoint round
        self.processor: LiveProcessor[Ticket] = LiveProcessor(
            self.configs,
            self._load_snapshot,
            silence_ms=int(settings.silence_minutes * 60_000),
            topic=settings.topics.events,
            signer=signer,
            checkpoints=CheckpointPolicy(settings.checkpoint_events, settings.checkpoint_minutes),
            writer=self.writer_id,
        )
        self.store = connect(settings.dsn)
        migrate(self.store)
        # the tables it judges, their game, pit and cameras, for readers without the file
        entries = table_entries(settings.config_path)
        now_ms = int(time.time() * 1000)
        write_directory(self.store, directory_rows(self.configs, entries, now_ms))
        write_paytables(self.store, paytable_rows(self.configs, now_ms))  # for the hold panels
        fill_configured(self.store, self.configs)  # the edges of pay tables stated by rows
        if signer is not None:  # its public key, where verify finds it
            publish_key(self.store, signer, int(time.time() * 1000))
        self.writer = StoreWriter(self.store)
        self.store_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clickhouse")
        # the dashboards' rollups, refreshed on the store thread (never inside an insert)
        self.rollups = (
            RollupRefresher.sole_writer(self.store, settings.rollup_seconds)
            if isinstance(parse_dsn(settings.dsn), EmbeddedDsn)  # this process alone writes it
            else RollupRefresher(self.store, settings.rollup_seconds)
        )
        self.access.install(self.app, self.store, self.store_thread)  # access_log, written here
        # casework: the one desk deciding case steps, writing them on the store thread
        self.cases = CaseDesk(self.store, settings.dispositions)
        # the /query view's threads, each with a read-only client of its own
        limits = settings.query_limits
        self.queries = QueryPool(
            lambda: open_reader(settings.dsn, limits),
            threads=settings.query_threads,
            seconds=limits.seconds,
        )
        # batches written by one task, in order, while the agent goes on judging
        # (rows the store refuses are set aside by it, their messages refused by the processor)
        self.batches: BatchWriter[Ticket] = BatchWriter(
            Sinks(
                self._insert_rows,
                self._send_messages,
                self._save_snapshots,
                self._commit,
                probe=self._probe_store,
                fence=self._save_fence,
            ),
            refuse=lambda batch, origin, reason: self.processor.refuse(
                origin, "store", reason, batch=batch
            ),
        )
        self._topics_ready = asyncio.Event()
        self._last_flush = time.monotonic()
        # the patterns across rounds: a child process reads the events topic again, this
        # process stores what it finds (the store is this process's alone when embedded)
        self.patterns = (
            PatternsChild(
                CompanionSettings(
                    settings.config_path,
                    settings.kafka,
                    settings.topics.events,
                    horizon_ms=int(settings.patterns_horizon_s * 1000),
                ),
                self.store,
                self._on_store_thread,
                self._send_findings,
            )
            if settings.patterns
            else None
        )
        self._install()

    def _load_snapshot(self, table_id: str) -> bytes | None:
        return None if self.changelog is None else self.changelog.get(table_id.encode())

    def _install(self) -> None:
        app, settings = self.app, self.settings

        @app.task  # type: ignore[untyped-decorator]
        async def consume() -> None:
            self._say_how_chains_are_signed()
            await self._prepare_topics()
            # what start-up made (modules, the app, the configuration) lives as long as the
            # process: out of the collector's sight, a full collection no longer walks it
            # (one walking it took 136 ms, a pause every judged round waits out)
            gc.collect()
            gc.freeze()
            await self._consume()

        @app.task  # type: ignore[untyped-decorator]
        async def write_batches() -> None:
            await self.batches.run()

        @app.timer(settings.flush_every_ms / 1000)  # type: ignore[untyped-decorator]
        async def tick() -> None:
            if self.processor.pending():
                await self.flush()

        @app.timer(settings.rollup_seconds)  # type: ignore[untyped-decorator]
        async def refresh_rollups() -> None:  # a failure is logged, counted, read again next
            loop = asyncio.get_running_loop()
            for step in self.rollups.steps():  # a batch waits for one rollup, not all of them
                if not await loop.run_in_executor(self.store_thread, step):
                    return

        @app.timer(10.0)  # type: ignore[untyped-decorator]
        async def silence() -> None:
            try:
                closed = self.processor.close_silent_rounds()
            except Exception:  # its rounds are refused one by one; this is the last resort
                log.exception("closing silent rounds failed")
                closed = 1
            signed = self.processor.sign_due()  # tables whose events came and stopped
            if self._round_due():
                signed += self._checkpoint_round()
            if closed or signed or self.processor.pending():
                await self.flush()

        patterns = self.patterns
        if patterns is not None:

            @app.task  # type: ignore[untyped-decorator]
            async def find_patterns() -> None:
                await self._topics_ready.wait()
                await patterns.run()

        install_views(self)

    def _say_how_chains_are_signed(self) -> None:
        signer, policy = self.processor.signer, self.processor.checkpoint_policy
        if signer is None:
            log.warning(
                "no checkpoint key (--checkpoint-key): the tables' hash chains are written, "
                "no checkpoint is signed"
            )
        else:
            log.info(
                "checkpoints signed with key %s every %d events or %g minutes per table",
                signer.key_id, policy.every_events, policy.every_minutes,
            )  # fmt: skip

    async def _consume(self) -> None:
        """Start the producer and the events loop, and consume until the app stops."""
        settings = self.settings
        access = settings.kafka.aiokafka()
        self.producer = AIOKafkaProducer(**access, acks="all")
        await self.producer.start()
        try:
            self.changelog = Changelog(
                self.changelog_topic.get_topic_name(), settings.partitions, self.producer
            )
            self.events = EventsLoop(
                AIOKafkaConsumer(
                    **consumer_settings(settings.app_id, settings.session_timeout_s, access)
                ),
                AIOKafkaConsumer(**access, enable_auto_commit=False),
                settings.topics.events,
                self.processor,
                self.changelog,
                max_records=settings.flush_size,
                poll_ms=settings.flush_every_ms,
                flush_due=self._flush_due,
                flush=self.flush,
                partitions_revoked=self._on_revoked,
                stopping=self.batches.abandon,
            )
            self._topics_ready.set()
            await self.events.run()
        finally:
            await self.producer.stop()

    async def _on_revoked(self, partitions: set[int]) -> None:
        """A rebalance takes partitions away: finish what was judged, forget the rest.

        Everything already judged is written (with the tables' snapshots) before
        the rebalance completes, so the next owner restores the latest state.
        Open rounds and their unacknowledged messages are dropped here: the next
        owner (maybe this worker again) reads them again from the committed
        offset and restores the tables from the changelog.
        """
        if self.processor.signer is not None:  # what it holds, signed before it goes
            self.processor.sign_now(partitions)
            self.processor.checkpoint_round(partitions)
        await self.flush()
        if not await self.batches.settle(timeout_s=self.settings.session_timeout_s / 2):
            log.error("rebalance: batches not written in time; the next owner redoes them")
        dropped = self.processor.forget(partitions)
        log.info("rebalance: partitions %s revoked, %d tables dropped",
                 sorted(partitions), len(dropped))  # fmt: skip

    def _round_due(self) -> bool:
        """A checkpoint round is due: every ``--checkpoint-minutes``, once the worker consumes."""
        if self.processor.signer is None:
            return False
        every_s = self.settings.checkpoint_minutes * 60
        if self._last_round and time.monotonic() - self._last_round < every_s:
            return False
        return readiness(self) == "ok"

    def _checkpoint_round(self) -> int:
        """Take on every table of this worker's partitions that its saved state holds (a quiet
        table after a restart has no event to bring it in), sign what is due and the floor
        manifest of those partitions. The saved states are the changelog-backed table's:
        they survive restarts, so the schedule does too."""
        self._last_round = time.monotonic()
        if self.events is None or self.changelog is None:
            return 0
        actives = set(self.events.partitions)
        if not actives:
            return 0
        for _, key, value in self.changelog.items():
            if is_fence_key(key):
                continue
            try:
                partition = chain_partition(value)
            except Exception:  # a saved state that cannot be read: restoring it says so
                partition = -1
            if partition < 0:  # saved before the partition was kept: the key's partition
                partition = key_partition(key, self.settings.partitions)
            if partition in actives:
                self.processor.adopt(key.decode(errors="replace"), partition)
        return self.processor.checkpoint_round(actives)

    async def _prepare_topics(self) -> None:
        """Create the output topics and the changelog (when missing) before anything is sent."""
        for topic in (self.rounds_topic, self.findings_topic, self.dlq_topic, self.changelog_topic):
            await topic.maybe_declare()
        if self.processor.signer is not None:
            await self.checkpoints_topic.maybe_declare()

    def _flush_due(self) -> bool:
        if self.processor.pending() >= self.settings.flush_size:
            return True
        elapsed_ms = (time.monotonic() - self._last_flush) * 1000
        return elapsed_ms >= self.settings.flush_every_ms

    async def flush(self) -> None:
        """Hand the current batch to the writer task (in order; waits only when it is behind)."""
        batch = self.processor.drain()
        self._last_flush = time.monotonic()
        if len(batch) == 0 and not batch.snapshots:
            return
        await self.batches.put(batch)

    async def _insert_rows(self, batch: FlushBatch[Ticket]) -> None:
        await asyncio.get_running_loop().run_in_executor(
            self.store_thread,
            lambda: self.writer.insert(
                events=batch.events,
                rounds=batch.rounds,
                settlements=batch.settlements,
                findings=batch.findings,
                checkpoints=batch.checkpoints,
            ),
        )

    async def _probe_store(self) -> None:
        """A statement that fails only when the store does (see batch_writer)."""
        await asyncio.get_running_loop().run_in_executor(
            self.store_thread, lambda: self.store.command("SELECT 1")
        )

    async def _send_messages(self, batch: FlushBatch[Ticket]) -> None:
        await self._topics_ready.wait()
        producer = self.producer
        assert producer is not None  # set before _topics_ready
        sends = []
        for topic, messages in (
            (self.rounds_topic, batch.round_messages),
            (self.findings_topic, batch.finding_messages),
            (self.dlq_topic, batch.dead_letters),
        ):
            name = topic.get_topic_name()
            for key, value in messages:
                sends.append(await producer.send(name, value, key=key))
        # the record kept outside the store, once the rows it vouches for are stored: one
        # partition (keyed by this process), so that its manifests are read in order
        writer = self.writer_id.encode()
        name = self.checkpoints_topic.get_topic_name()
        for line in batch.external:
            sends.append(await producer.send(name, line, key=writer))
        if sends:
            await asyncio.gather(*sends)
        if batch.external and self.manifest_file is not None:
            lines, file = batch.external, self.manifest_file
            await asyncio.get_running_loop().run_in_executor(None, lambda: file.append(lines))

    async def _on_store_thread(self, call: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.store_thread, call)

    async def _send_findings(self, messages: list[tuple[bytes, bytes]]) -> None:
        """Send findings made outside the batches (the patterns') to the findings topic."""
        await self._topics_ready.wait()
        producer = self.producer
        assert producer is not None  # set before _topics_ready
        name = self.findings_topic.get_topic_name()
        sends = [await producer.send(name, value, key=key) for key, value in messages]
        if sends:
            await asyncio.gather(*sends)

    async def _save_snapshots(self, snapshots: Mapping[str, bytes]) -> None:
        """Write each table's state to the changelog; returns once the broker has them."""
        await self._topics_ready.wait()
        assert self.changelog is not None  # set before _topics_ready
        await self.changelog.save(snapshots)

    async def _save_fence(self, tickets: list[Ticket]) -> None:
        """Write each partition's restore fence (:mod:`.restore_fence`): the offset through
        which its messages are committed once ``tickets`` are, after their snapshots are in
        the broker; returns once the broker has it (the commit follows)."""
        assert self.changelog is not None and self.events is not None
        through = self.events.commits.through(tickets)
        if through:
            await self.changelog.save_fences(through)

    async def _commit(self, tickets: list[Ticket]) -> None:
        """The batch's last step: the commit step (:mod:`.commit_step`)."""
        assert self.events is not None
        await self.events.commits.commit(tickets)

    def run(self) -> None:
        """Run the worker until it is stopped (SIGINT/SIGTERM)."""
        if self.settings.event_loop == "uvloop":
            import uvloop

            asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
        worker = faust.Worker(self.app, loglevel=self.settings.log_level, quiet=True)
        # Faust's terminal spinner sets the root logger to DEBUG (to spin on every record),
        # which makes Faust and aiokafka build a log record for each message they send.
        worker.spinner = None
        worker.execute_from_commandline()
