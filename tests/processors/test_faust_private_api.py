"""The parts of Faust and the Kafka clients that the worker overrides, or reaches past their
documented use.

The worker reads the events with aiokafka's public consumer API; what it still takes from
Faust's inside is how the app starts without Faust's own consumer (``processors/app.py``).
Each member's signature is written below as the installed, pinned versions have it
(``inspect.signature``, copied here as text). A new release may change any of them
without notice: these tests then name what changed, and the worker and this record are
updated only after re-reading docs/pipeline.md.
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

import faust
import pytest
from aiokafka import ConsumerRebalanceListener
from faust.app.base import BootStrategy
from kafka.partitioner import default as kafka_partitioner

from tablewatch.processors import app as worker_app
from tablewatch.processors import consumer_loop

# the versions the signatures below were read from; pyproject.toml pins the same
RECORDED_FROM = {"faust-streaming": "0.15.3", "mode-streaming": "0.7.1", "aiokafka": "0.14.0"}

ADVICE = (
    'Re-read docs/pipeline.md ("The consumer loop", "Why nothing is lost or doubled") '
    "before upgrading faust-streaming, mode-streaming or aiokafka; then adapt the worker "
    "and update this record."
)


@dataclass(frozen=True)
class Private:
    """One part of a library the worker relies on, as the recorded versions have it."""

    owner: type | ModuleType  # where the worker reaches it: the class it derives from
    name: str
    use: str  # who overrides or calls it
    expected: str  # what describe() gives for it in the recorded versions

    @property
    def where(self) -> str:
        owner = self.owner
        if isinstance(owner, ModuleType):
            return f"{owner.__name__}.{self.name}"
        return f"{owner.__module__}.{owner.__qualname__}.{self.name}"


PRIVATE = [
    # overridden
    Private(faust.App, "BootStrategy", "overridden by app._App (starts no Faust consumer)",
            "class faust.app.base.BootStrategy"),
    Private(BootStrategy, "enable_kafka_consumer", "overridden by app._HostOnly",
            "attribute typing.Optional[bool]"),
    Private(ConsumerRebalanceListener, "on_partitions_revoked",
            "overridden by consumer_loop._Listener", "(self, revoked)"),
    Private(ConsumerRebalanceListener, "on_partitions_assigned",
            "overridden by consumer_loop._Listener", "(self, assigned)"),
    # called
    Private(kafka_partitioner, "murmur2", "called by changelog.key_partition (a snapshot's "
            "partition: the events' default partitioner)", "(data)"),
    # Faust's code that reads the override (see test_the_overrides_are_still_reached)
    Private(BootStrategy, "_should_enable_kafka_consumer",
            "reads enable_kafka_consumer for the consumer, conductor and tables", "(self) -> bool"),
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


# The worker's classes deriving from the libraries', and the class each derives from.
OURS: list[tuple[type, type]] = [
    (worker_app._App, faust.App),
    (worker_app._HostOnly, BootStrategy),
    (consumer_loop._Listener, ConsumerRebalanceListener),
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
        if (
            (name == "__init__" and inspect.getattr_static(base, "__init__") is not object.__init__)
            or not name.startswith("__")
        )
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


# Where Faust reaches the override: a release that no longer reads it this way would start
# Faust's consumer beside the worker's, in the same group.
REACHED = [
    (BootStrategy._should_enable_kafka_consumer, "return self.enable_kafka_consumer",
     "the boot strategy decides on Faust's consumer by enable_kafka_consumer"),
    (BootStrategy.kafka_consumer, "if self._should_enable_kafka_consumer():",
     "Faust's consumer is started only when enabled"),
    (BootStrategy.kafka_conductor, "if self._should_enable_kafka_consumer():",
     "Faust's topic conductor is started only when enabled"),
    (BootStrategy.tables, "if self._should_enable_kafka_consumer():",
     "Faust's table manager (its recovery) is started only when enabled"),
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


def test_the_record_stays_small() -> None:
    """The worker's guarantee rests on public calls; what it reaches past them stays few."""
    assert len(PRIVATE) <= 10
