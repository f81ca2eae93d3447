"""The Faust app: consume ``table-events``, judge rounds, write ClickHouse and the output topics.

Processing guarantee: at least once, made harmless by idempotent sinks.
- Messages are consumed with acks disabled and acknowledged by hand once the
  batch covering them is written (ClickHouse, then ``rounds``/``findings``,
  then the table's state snapshot); a round's messages wait for its end, and
  acks reach Faust in offset order only (:mod:`.ack_order`). The committed
  offset therefore never passes an event whose effects are not stored, so a
  killed worker re-reads what it had not finished (agent concurrency above
  1 would hand Faust acks out of order the same way; concurrency here is 1).
- Each table's state between rounds lives in a changelog-backed Faust table
  (``tablewatch-table-state``, keyed by table_id, partitioned like the
  source topic) and is restored on start.
- Re-delivered events are recognised by event_id; ClickHouse tables are
  ReplacingMergeTree keyed by stable ids, so a replay never shows twice.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import faust
from faust.types import TP, AppT, EventT, Message
from kafka.partitioner.default import murmur2
from mode import ServiceT

from tablewatch.casework.desk import CaseDesk
from tablewatch.config_file import load_config, table_entries
from tablewatch.integrity.checkpoints import CheckpointPolicy, publish_key
from tablewatch.integrity.keys import load_signer
from tablewatch.integrity.manifest import ManifestFile
from tablewatch.processors.access_control import AccessSettings, WorkerAccess
from tablewatch.processors.ack_order import InOrderAcks, Ticket
from tablewatch.processors.batch_writer import BatchWriter, Sinks
from tablewatch.processors.processor import FlushBatch, LiveProcessor
from tablewatch.processors.restore_fence import (
    decode_fence,
    encode_fence,
    fence_key,
    is_fence_key,
)
from tablewatch.processors.settings import WorkerSettings
from tablewatch.processors.state_codec import chain_partition
from tablewatch.processors.stepped_delivery import SteppedDeliveryApp, SteppedDeliveryConsumer
from tablewatch.processors.web import install_views, readiness
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.query_pool import QueryPool
from tablewatch.store.read_only import open_reader
from tablewatch.store.rollups import RollupRefresher
from tablewatch.store.table_directory import directory_rows, write_directory
from tablewatch.store.table_paytables import paytable_rows, write_paytables
from tablewatch.store.theoretical import fill_configured
from tablewatch.store.writer import StoreWriter

log = logging.getLogger("tablewatch.worker")
STATE_TABLE = "tablewatch-table-state"


class _App(SteppedDeliveryApp):
    """Faust's app (with :mod:`.stepped_delivery`'s consumer), without its statistics sensor
    (the Monitor): the worker keeps its own counters (/metrics), and the Monitor's
    bookkeeping on every message, event and send cost about 4% of the main thread."""

    def on_init_dependencies(self) -> Iterable[ServiceT]:
        dependencies = super().on_init_dependencies()  # adds the Monitor to the sensors
        self.sensors.remove(self.monitor)
        return dependencies


class _AsReceived(faust.Schema):  # type: ignore[type-arg]
    """Keys and values as the bytes received, without Faust's codec registry (about 10% of
    the main thread for the "raw" codec, which returns them unchanged). A missing value
    is empty bytes: the processor dead-letters it as bad JSON."""

    def loads_key(self, app: AppT, message: Message, **_: Any) -> bytes | None:
        return message.key

    def loads_value(self, app: AppT, message: Message, **_: Any) -> bytes:
        return message.value if message.value is not None else b""


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
            processing_guarantee="at_least_once",
            broker_commit_interval=1.0,
            stream_wait_empty=False,
            topic_allow_declare=True,
            consumer_auto_offset_reset="earliest",
            broker_session_timeout=settings.session_timeout_s,
            broker_heartbeat_interval=max(1.0, settings.session_timeout_s / 10),
        )
        self.app.strict_topics = frozenset({settings.topics.events})
        self.app.restored_fence = self._restored_fence  # read by the consumer's seek
        raw: dict[str, Any] = {
            "key_type": bytes,
            "value_type": bytes,
            "key_serializer": "raw",
            "value_serializer": "raw",
        }
        topics = settings.topics
        self.events_topic = self.app.topic(topics.events, schema=_AsReceived())
        self.rounds_topic = self.app.topic(topics.rounds, **raw)
        self.findings_topic = self.app.topic(topics.findings, **raw)
        self.dlq_topic = self.app.topic(topics.dead_letters, **raw)
        self.checkpoints_topic = self.app.topic(settings.checkpoints_topic, **raw)
        self.state = self.app.Table(
            STATE_TABLE,
            default=None,
            key_type=bytes,
            value_type=bytes,
            partitions=settings.partitions,
            use_partitioner=True,  # partition by key, like the source topic
        )
        self.acks: InOrderAcks[EventT[bytes]] = InOrderAcks(self._ack)
        # read before anything starts: a key that cannot be read stops the worker here
        signer = load_signer(settings.checkpoint_key) if settings.checkpoint_key else None
        self.manifest_file = (
            ManifestFile(settings.manifest_file) if settings.manifest_file is not None else None
        )
        self.started = time.time()
        # names this process's manifests: a restarted worker starts a chain of its own
        self.writer_id = f"{socket.gethostname()}:{os.getpid()}:{int(self.started * 1000)}"
        self._last_round = 0.0  # monotonic time of the last checkpoint round
        self.processor: LiveProcessor[Ticket[EventT[bytes]]] = LiveProcessor(
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
        self.rollups = RollupRefresher(self.store, settings.rollup_seconds)
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
        self.batches: BatchWriter[Ticket[EventT[bytes]]] = BatchWriter(
            Sinks(
                self._insert_rows,
                self._send_messages,
                self._save_snapshots,
                self.acks.release,
                probe=self._probe_store,
                fence=self._save_fence,
            ),
            refuse=lambda batch, origin, reason: self.processor.refuse(
                origin, "store", reason, batch=batch
            ),
        )
        self._topics_ready = asyncio.Event()
        self._last_flush = time.monotonic()
        self.positions: dict[int, int] = {}  # partition -> last offset handed to the processor
        self.delay_s = 0.0
        self._install()

    def _ack(self, event: EventT[bytes]) -> None:
        cast(SteppedDeliveryConsumer, self.app.consumer).ack_processed(event.message)

    def _load_snapshot(self, table_id: str) -> bytes | None:
        value = self.state.get(table_id.encode())
        return value if isinstance(value, bytes) else None

    def _install(self) -> None:
        app, settings = self.app, self.settings

        @app.agent(self.events_topic, concurrency=1)
        async def judge(stream: faust.StreamT[bytes]) -> None:
            async for event in stream.noack().events():  # type: ignore[attr-defined]
                message = event.message
                self.positions[message.partition] = message.offset
                self.delay_s = time.time() - message.timestamp  # since the producer sent it
                ticket = self.acks.track(message.partition, message.offset, event)
                self.processor.handle(event.value, message.partition, message.offset, ticket)
                if self._flush_due():
                    await self.flush()

        # Faust sends this signal as receiver(app, partitions, signal=...). Messages fetched
        # before a rebalance are not delivered after it (Faust's streams skip messages of an
        # older consumer generation).
        @app.on_partitions_revoked.connect
        async def on_revoked(sender: Any, /, *partitions: Any, signal: Any, **_: Any) -> None:
            await self._on_revoked(partitions[0])

        @app.task  # type: ignore[untyped-decorator]
        async def prepare() -> None:
            self._say_how_chains_are_signed()
            await self._prepare_topics()

        @app.task  # type: ignore[untyped-decorator]
        async def write_batches() -> None:
            await self.batches.run()

        @app.timer(settings.flush_every_ms / 1000)  # type: ignore[untyped-decorator]
        async def tick() -> None:
            if self.processor.pending():
                await self.flush()

        @app.timer(settings.rollup_seconds)  # type: ignore[untyped-decorator]
        async def refresh_rollups() -> None:  # a failure is logged, counted, read again next
            await asyncio.get_running_loop().run_in_executor(
                self.store_thread, self.rollups.refresh
            )

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

    async def _on_revoked(self, revoked: set[TP]) -> None:
        """A rebalance takes partitions away: finish what was judged, forget the rest.

        Everything already judged is written (with the tables' snapshots) before
        the rebalance completes, so the next owner restores the latest state.
        Open rounds and their unacknowledged messages are dropped here: the next
        owner (maybe this worker again) reads them again from the committed
        offset and restores the tables from the changelog.
        """
        partitions = {tp.partition for tp in revoked if tp.topic == self.settings.topics.events}
        if not partitions:
            return
        if self.processor.signer is not None:  # what it holds, signed before it goes
            self.processor.sign_now(partitions)
            self.processor.checkpoint_round(partitions)
        await self.flush()
        if not await self.batches.settle(timeout_s=self.settings.session_timeout_s / 2):
            log.error("rebalance: batches not written in time; the next owner redoes them")
        dropped = self.processor.forget(partitions)
        waiting = self.acks.forget(partitions)
        log.info("rebalance: partitions %s revoked, %d tables and %d messages dropped",
                 sorted(partitions), len(dropped), waiting)  # fmt: skip

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
        topic = self.settings.topics.events
        actives = {tp.partition for tp in self.app.assignor.assigned_actives() if tp.topic == topic}
        if not actives:
            return 0
        for key, value in list(self.state.items()):
            if not isinstance(value, bytes) or not isinstance(key, bytes) or is_fence_key(key):
                continue
            try:
                partition = chain_partition(value)
            except Exception:  # a saved state that cannot be read: restoring it says so
                partition = -1
            if partition < 0:  # saved before the partition was kept: the key's partition
                partition = (murmur2(key) & 0x7FFFFFFF) % self.settings.partitions
            if partition in actives:
                self.processor.adopt(key.decode(errors="replace"), partition)
        return self.processor.checkpoint_round(actives)

    async def _prepare_topics(self) -> None:
        """Create the output topics and learn the changelog's partitions before the first flush.

        The state table picks a snapshot's partition from its key (like the
        source topic), which needs the producer to know the changelog topic.
        """
        for topic in (self.rounds_topic, self.findings_topic, self.dlq_topic):
            await topic.maybe_declare()
        if self.processor.signer is not None:
            await self.checkpoints_topic.maybe_declare()
        await self._changelog_partitions()
        self._topics_ready.set()

    async def _changelog_partitions(self) -> None:
        """Wait until the producer's metadata has the changelog topic's partitions."""
        producer = self.app.producer._ensure_producer()  # type: ignore[attr-defined]
        await producer.partitions_for(self.state.changelog_topic.get_topic_name())

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

    async def _insert_rows(self, batch: FlushBatch[Ticket[EventT[bytes]]]) -> None:
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

    async def _send_messages(self, batch: FlushBatch[Ticket[EventT[bytes]]]) -> None:
        await self._topics_ready.wait()
        sends = []
        for topic, messages in (
            (self.rounds_topic, batch.round_messages),
            (self.findings_topic, batch.finding_messages),
            (self.dlq_topic, batch.dead_letters),
        ):
            for key, value in messages:
                sends.append(await topic.send(key=key, value=value))
        # the record kept outside the store, once the rows it vouches for are stored: one
        # partition (keyed by this process), so that its manifests are read in order
        writer = self.writer_id.encode()
        for line in batch.external:
            sends.append(await self.checkpoints_topic.send(key=writer, value=line))
        if sends:
            await asyncio.gather(*sends)
        if batch.external and self.manifest_file is not None:
            lines, file = batch.external, self.manifest_file
            await asyncio.get_running_loop().run_in_executor(None, lambda: file.append(lines))

    async def _save_snapshots(self, snapshots: Mapping[str, bytes]) -> None:
        """Set each table's state and wait until the broker has its changelog message.

        What ``self.state[key] = value`` does, but with the send's future kept:
        Faust would only buffer the message (see :mod:`.batch_writer`).
        """
        table = self.state
        # The producer picks a snapshot's partition from its metadata, at once and without
        # asking the broker (eager partitioning). A metadata response in which the changelog
        # topic carried an error (a leader being elected) drops the topic from it until the
        # next refresh, minutes later: every send would raise TypeError until then. Asked
        # here, a known topic costs nothing and a dropped one is fetched again.
        await self._changelog_partitions()
        sent = []
        for table_id, data in snapshots.items():
            key = table_id.encode()
            sent.append(table.send_changelog(table.partition_for_key(key), key, data))
            table.data[key] = data
        await asyncio.gather(*sent)

    async def _save_fence(self, tickets: list[Ticket[EventT[bytes]]]) -> None:
        """Write each partition's restore fence (:mod:`.restore_fence`): the offset through
        which its messages are acknowledged once ``tickets`` are, after their snapshots are
        in the broker; wait until the broker has it (the acks follow)."""
        table = self.state
        await self._changelog_partitions()  # as for the snapshots (see there)
        sent = []
        for partition, offset in self.acks.through(tickets).items():
            key, value = fence_key(partition), encode_fence(offset)
            sent.append(table.send_changelog(partition, key, value))
            table.data[key] = value
        if sent:
            await asyncio.gather(*sent)

    def _restored_fence(self, partition: int) -> int | None:
        """The fence of ``partition`` in the restored changelog (None: never fenced)."""
        value = self.state.get(fence_key(partition))
        if value is None:
            return None
        try:
            return decode_fence(value, partition)
        except ValueError as exc:  # read the partition from its start: slow, nothing lost
            log.error("%s; partition %d is read again from offset 0", exc, partition)
            return -1

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
