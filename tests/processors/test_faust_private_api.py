"""The private parts of Faust, mode and Faust's aiokafka driver that the worker overrides or calls.

The worker's delivery guarantee rests on them (``processors/commit_guards.py``,
``processors/stepped_delivery.py``, ``processors/app.py``, ``processors/web.py``).
Each one's signature is written below as the installed, pinned versions have it
(``inspect.signature``, copied here as text). A new release may change any of them
without notice: these tests then name what changed, and the overrides and this
record are updated only after re-reading docs/pipeline.md.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import aiokafka
import faust
import pytest
from faust.tables.recovery import Recovery
from faust.transport import base as faust_transport
from faust.transport import consumer as faust_consumer
from faust.transport.drivers import aiokafka as aiokafka_driver
from faust.types.tuples import ConsumerMessage

from tablewatch.processors import app as worker_app
from tablewatch.processors.commit_guards import CommitGuardedConsumer, RevocationSafeConsumerThread
from tablewatch.processors.stepped_delivery import (
    SteppedDeliveryApp,
    SteppedDeliveryConsumer,
    SteppedDeliveryTransport,
)

# the versions the signatures below were read from; pyproject.toml pins the same
RECORDED_FROM = {"faust-streaming": "0.15.3", "mode-streaming": "0.7.1", "aiokafka": "0.14.0"}

ADVICE = (
    'Re-read docs/pipeline.md ("Delivering a message", "Why nothing is lost or doubled") '
    "before upgrading faust-streaming, mode-streaming or aiokafka; then adapt the worker "
    "and update this record."
)


@dataclass(frozen=True)
class Private:
    """One part of a library the worker relies on, as the recorded versions have it."""

    owner: type | ModuleType  # where the worker reaches it: the Faust class it derives from
    name: str
    use: str  # who overrides or calls it
    expected: str  # what describe() gives for it in the recorded versions

    @property
    def where(self) -> str:
        owner = self.owner
        if isinstance(owner, ModuleType):
            return f"{owner.__name__}.{self.name}"
        return f"{owner.__module__}.{owner.__qualname__}.{self.name}"


CONSUMER = aiokafka_driver.Consumer
GUARDS = "overridden by commit_guards.CommitGuardedConsumer"
STEPPED = "overridden by stepped_delivery.SteppedDeliveryConsumer"

PRIVATE = [
    # overridden
    Private(CONSUMER, "__init__", f"{GUARDS} and {STEPPED}",
            "(self, *args: Any, **kwargs: Any) -> None"),
    Private(CONSUMER, "wait_first", STEPPED,
            "(self, *coros: Union[_asyncio.Future, collections.abc.Coroutine[Any, None, Any], "
            "collections.abc.Awaitable, mode.utils.locks.Event], "
            "timeout: Union[datetime.timedelta, float, str] = None) -> mode.services.WaitResults"),
    Private(CONSUMER, "perform_seek", GUARDS, "(self) -> None"),
    Private(CONSUMER, "_new_consumer_thread", GUARDS, "(self) -> 'AIOKafkaConsumerThread'"),
    Private(aiokafka_driver.AIOKafkaConsumerThread, "_commit",
            "overridden by commit_guards.RevocationSafeConsumerThread",
            "(self, offsets: Mapping[faust.types.tuples.TP, int]) -> bool"),
    Private(CONSUMER, "_add_gap", GUARDS,
            "(self, tp: faust.types.tuples.TP, offset_from: int, offset_to: int) -> None"),
    Private(CONSUMER, "ack", GUARDS, "(self, message: faust.types.tuples.Message) -> bool"),
    Private(aiokafka_driver.Transport, "Consumer", "overridden by SteppedDeliveryTransport",
            "class faust.transport.drivers.aiokafka.Consumer"),
    Private(faust.App, "_new_transport", "overridden by stepped_delivery.SteppedDeliveryApp",
            "(self) -> faust.types.transports.TransportT"),
    Private(faust.App, "on_init_dependencies", "overridden by app._App (drops the Monitor)",
            "(self) -> Iterable[mode.types.services.ServiceT]"),
    Private(faust.Schema, "loads_key", "overridden by app._AsReceived",
            "(self, app: faust.types.app.AppT, message: faust.types.tuples.Message, *, "
            "loads: Optional[Callable] = None, "
            "serializer: Union[faust.types.codecs.CodecT, str, NoneType] = None) -> ~KT"),
    Private(faust.Schema, "loads_value", "overridden by app._AsReceived",
            "(self, app: faust.types.app.AppT, message: faust.types.tuples.Message, *, "
            "loads: Optional[Callable] = None, "
            "serializer: Union[faust.types.codecs.CodecT, str, NoneType] = None) -> ~VT"),
    # called or read
    Private(faust_consumer.Consumer, "__init__", "its callback wrapped by SteppedDeliveryConsumer",
            "(self, transport: faust.types.transports.TransportT, "
            "callback: Callable[[faust.types.tuples.Message], Awaitable], "
            "on_partitions_revoked: Callable[[Set[faust.types.tuples.TP]], Awaitable[NoneType]], "
            "on_partitions_assigned: Callable[[Set[faust.types.tuples.TP]], Awaitable[NoneType]], "
            "*, commit_interval: Optional[float] = None, "
            "commit_livelock_soft_timeout: Optional[float] = None, "
            "loop: Optional[asyncio.events.AbstractEventLoop] = None, **kwargs: Any) -> None"),
    Private(CONSUMER, "_committed_offset", "read by commit_guards' rewinds, web.py",
            "attribute typing.MutableMapping[faust.types.tuples.TP, typing.Optional[int]]"),
    Private(CONSUMER, "_stopped", "read by SteppedDeliveryConsumer._must_race",
            "attribute mode.utils.locks.Event"),
    Private(CONSUMER, "_crashed", "read by SteppedDeliveryConsumer._must_race",
            "attribute mode.utils.locks.Event"),
    Private(CONSUMER, "suspend_flow", "read by SteppedDeliveryConsumer",
            "attribute asyncio.locks.Event"),
    Private(CONSUMER, "flow_active", "read by CommitGuardedConsumer.perform_seek",
            "attribute builtins.bool"),
    Private(CONSUMER, "stop_flow", "called by CommitGuardedConsumer.perform_seek",
            "(self) -> None"),
    Private(CONSUMER, "resume_flow", "called by CommitGuardedConsumer.perform_seek",
            "(self) -> None"),
    Private(CONSUMER, "seek_wait", "called by CommitGuardedConsumer's two rewinds",
            "(self, partitions: Mapping[faust.types.tuples.TP, int]) -> None"),
    Private(CONSUMER, "assignment", "called by CommitGuardedConsumer's two rewinds",
            "(self) -> Set[faust.types.tuples.TP]"),
    Private(CONSUMER, "highwater", "called by web.py (lag, uncommitted)",
            "(self, tp: faust.types.tuples.TP) -> int"),
    Private(aiokafka_driver, "ensure_aiokafka_TP", "called by both rewinds",
            "(tp: faust.types.tuples.TP) -> aiokafka.structs.TopicPartition"),
    Private(ConsumerMessage, "ack", "called by CommitGuardedConsumer.ack_processed",
            "(self, consumer: faust.types.tuples._ConsumerT, n: int = 1) -> bool"),
    Private(aiokafka_driver.Transport, "__init__", "called by SteppedDeliveryApp._new_transport",
            "(self, *args: Any, **kwargs: Any) -> None"),
    Private(faust_transport.Transport, "__init__", "called by SteppedDeliveryApp._new_transport",
            "(self, url: List[yarl.URL], app: faust.types.app.AppT, "
            "loop: Optional[asyncio.events.AbstractEventLoop] = None) -> None"),
    Private(aiokafka_driver.Producer, "_ensure_producer",
            "called by app.Worker._changelog_partitions",
            "(self) -> aiokafka.producer.producer.AIOKafkaProducer"),
    Private(aiokafka.AIOKafkaProducer, "partitions_for",
            "called by app.Worker._changelog_partitions (before the first flush and each save)",
            "(self, topic)"),
    Private(faust.Table, "send_changelog", "called by app.Worker._save_snapshots, _save_fence",
            "(self, partition: Optional[int], key: Any, value: Any, "
            "key_serializer: Union[faust.types.codecs.CodecT, str, NoneType] = None, "
            "value_serializer: Union[faust.types.codecs.CodecT, str, NoneType] = None) "
            "-> faust.types.tuples.FutureMessage"),
    Private(faust.Table, "partition_for_key", "called by app.Worker._save_snapshots",
            "(self, key: Any) -> Optional[int]"),
    Private(faust.Table, "data", "written by app.Worker._save_snapshots, _save_fence",
            "property"),
    # Faust's code that reaches the overrides (see test_the_overrides_are_still_reached)
    Private(faust_consumer.Consumer, "_drain_messages", "calls wait_first and _add_gap",
            "(self, fetcher: mode.types.services.ServiceT) -> None"),
    Private(Recovery, "_resume_streams", "calls perform_seek",
            "(self, generation_id: int = 0) -> None"),
    Private(ConsumerMessage, "on_final_ack", "calls ack",
            "(self, consumer: faust.types.tuples._ConsumerT) -> bool"),
]  # fmt: skip

_MISSING = object()


def describe(owner: type | ModuleType, name: str) -> str | None:
    """What ``owner.name`` is: a callable's signature, ``property``, ``class X``, or
    ``attribute T`` (a class attribute's annotation); None when it is not there."""
    value = inspect.getattr_static(owner, name, _MISSING)
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return "property"
    if inspect.isclass(value):
        return f"class {value.__module__}.{value.__qualname__}"
    if value is not _MISSING and callable(value):
        return str(inspect.signature(value))
    for cls in owner.__mro__ if isinstance(owner, type) else ():
        annotations: dict[str, Any] = vars(cls).get("__annotations__", {})
        if name in annotations:
            hint = annotations[name]
            text = f"{hint.__module__}.{hint.__qualname__}" if inspect.isclass(hint) else hint
            return f"attribute {text}"
    return None if value is _MISSING else f"attribute of type {type(value).__name__}"


def _installed() -> str:
    return ", ".join(f"{name} {importlib.metadata.version(name)}" for name in RECORDED_FROM)


@pytest.mark.parametrize("private", PRIVATE, ids=lambda p: f"{p.owner.__name__}.{p.name}")
def test_the_private_parts_the_worker_relies_on_are_unchanged(private: Private) -> None:
    found = describe(private.owner, private.name)
    if found == private.expected:
        return
    found_text = "nothing: it is gone" if found is None else found
    pytest.fail(
        f"{private.where} ({private.use}) is not what the worker was written against:\n"
        f"  expected: {private.expected}\n  found:    {found_text}\n"
        f"Installed: {_installed()}; recorded from: "
        f"{', '.join(f'{n} {v}' for n, v in RECORDED_FROM.items())}.\n{ADVICE}",
        pytrace=False,
    )


# The worker's classes deriving from Faust's, and the Faust class each derives from.
OURS: list[tuple[type, type]] = [
    (CommitGuardedConsumer, CONSUMER),
    (RevocationSafeConsumerThread, aiokafka_driver.AIOKafkaConsumerThread),
    (SteppedDeliveryConsumer, CONSUMER),
    (SteppedDeliveryTransport, aiokafka_driver.Transport),
    (SteppedDeliveryApp, faust.App),
    (worker_app._App, faust.App),
    (worker_app._AsReceived, faust.Schema),
]


# not written by the worker: ABCMeta and mode's Service.__init_subclass__ set them on each subclass
SET_ON_EVERY_SUBCLASS = {"_abc_impl", "logger"}


@pytest.mark.parametrize("ours, base", OURS, ids=lambda c: c.__name__)
def test_every_override_is_recorded(ours: type, base: type) -> None:
    """A name the worker's class defines that Faust's class also has is an override: it must
    be in PRIVATE, so that a change of it in a new release is seen."""
    assert issubclass(ours, base)
    recorded = {p.name for p in PRIVATE if p.owner is base}
    overrides = {
        name
        for name in vars(ours)
        if (name == "__init__" or not name.startswith("__"))
        and name not in SET_ON_EVERY_SUBCLASS
        and describe(base, name) is not None
    }
    missing = sorted(overrides - recorded)
    assert not missing, (
        f"{ours.__qualname__} overrides {missing} of {base.__module__}.{base.__qualname__}, "
        f"not recorded in PRIVATE with its signature. {ADVICE}"
    )


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


# Where Faust reaches each override: a release that no longer calls them this way would
# leave an override silently unused (or, for wait_first, delivering outside the race).
DRAIN = faust_consumer.Consumer._drain_messages
REACHED = [
    (DRAIN, "await self.wait_first(callback(message), self.suspend_flow.wait())",
     "the drain loop delivers each message through wait_first"),
    (DRAIN, "await self._add_gap(tp, r_offset + 1, offset)",
     "the drain loop reports a jump in offsets through _add_gap"),
    (Recovery._resume_streams, "consumer.perform_seek()",
     "the recovery seeks to the committed offsets through perform_seek"),
    (ConsumerMessage.on_final_ack, "return consumer.ack(self)",
     "a message's final ack goes through the consumer's ack"),
]  # fmt: skip


@pytest.mark.parametrize(
    "function, call, meaning", REACHED, ids=[f"{f.__qualname__}:{c}" for f, c, _ in REACHED]
)
def test_the_overrides_are_still_reached(function: Any, call: str, meaning: str) -> None:
    """Faust's code still calls each override the way it is written for (whitespace aside)."""
    assert _squeezed(call) in _squeezed(inspect.getsource(function)), (
        f"{function.__module__}.{function.__qualname__} no longer contains {call!r}: "
        f"{meaning} no more. Installed: {_installed()}. {ADVICE}"
    )


def _pins() -> dict[str, str]:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    dependencies = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    pins = {}
    for requirement in dependencies:
        name, sep, version = requirement.partition("==")
        if sep:
            pins[name.strip()] = version.strip()
    return pins


@pytest.mark.parametrize("name", sorted(RECORDED_FROM))
def test_installed_versions_are_the_pinned_ones(name: str) -> None:
    pinned = _pins().get(name)
    installed = importlib.metadata.version(name)
    assert pinned == installed == RECORDED_FROM[name], (
        f"{name}: pinned in pyproject.toml {pinned!r}, installed {installed!r}, signatures in "
        f"{Path(__file__).name} recorded from {RECORDED_FROM[name]!r}. The worker overrides "
        f"private methods of it. {ADVICE}"
    )
