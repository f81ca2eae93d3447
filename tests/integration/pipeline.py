"""Running the live pipeline for tests: topics of its own, the worker as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tablewatch.kafka_access import KafkaAccess
from tablewatch.rules.decode import encode_event
from tablewatch.services import (
    child_service,
    create_topics,
    free_port,
    get_json,
    worker_args,
    worker_query,
)
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import SimulatedGame
from tests.sim.floors import FIRST_TWO

FAULTS = Path(__file__).parent / "faults"


@dataclass
class Deployment:
    """One isolated pipeline: its topic prefix, consumer group, port and data dirs."""

    bootstrap: str
    root: Path
    prefix: str
    web_port: int
    ports: dict[str, int] = field(default_factory=dict)

    @contextmanager
    def worker(
        self,
        config: Path,
        log_name: str = "worker.log",
        *,
        instance: str = "",
        changelog_delay: float = 0.0,
        extra_args: tuple[str, ...] = (),
    ) -> Iterator[subprocess.Popen[bytes]]:
        """A worker process; another ``instance`` joins the same group with its own
        embedded store, data directory and web port (``port_of(instance)``).
        ``changelog_delay``: seconds each table-state changelog record's delivery is held
        back (the fault of ``faults/sitecustomize.py``).
        ``extra_args``: more options of ``tablewatch worker``."""
        port = self.port_of(instance)
        args = worker_args(
            config, kafka=KafkaAccess(self.bootstrap),
            dsn=f"chdb:///{self.root / f'chdb{instance}'}",
            web_port=port, prefix=self.prefix, data_dir=self.root / f"worker{instance}",
            session_timeout=6,
        ) + list(extra_args)  # fmt: skip
        health = f"http://127.0.0.1:{port}/health"
        env = {"TABLEWATCH_LOG_LEVEL": "INFO"}
        if changelog_delay:
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (str(FAULTS), os.environ.get("PYTHONPATH", "")) if p
            )
            env["TABLEWATCH_TEST_CHANGELOG_DELAY"] = str(changelog_delay)
        with child_service(args, health, self.root / log_name, env=env) as process:
            yield process

    def port_of(self, instance: str) -> int:
        if instance not in self.ports:
            self.ports[instance] = self.web_port if not instance else free_port()
        return self.ports[instance]

    def log_tail(self, name: str = "worker.log") -> str:
        path = self.root / name
        return path.read_text(errors="replace")[-3000:] if path.exists() else "(no log)"

    def worker_story(self, *names: str) -> str:
        """The workers' rebalances, table restores, warnings and errors, from their logs."""
        keep = ("rebalance", "restored", "WARNING", "ERROR", "Setting newly assigned")
        noise = "Missing sensor state"  # Faust, because the worker drops its Monitor
        lines = [
            f"{name}: {line}"
            for name in names
            if (self.root / name).exists()
            for line in (self.root / name).read_text(errors="replace").splitlines()
            if any(word in line for word in keep) and noise not in line
        ]
        return "\n".join(lines[-200:])

    def get(self, path: str, instance: str = "") -> Any:
        return get_json(self.port_of(instance), path)

    def query(self, sql: str, instance: str = "") -> list[list[Any]]:
        return worker_query(self.port_of(instance), sql)

    def ingest(self, events_file: Path) -> None:
        subprocess.run(
            [sys.executable, "-m", "tablewatch.cli", "ingest", str(events_file),
             "--bootstrap", self.bootstrap, "--topics-prefix", self.prefix],
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip

    def wait_for_rounds(self, rounds: int, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        seen = -1
        while time.monotonic() < deadline:
            try:
                seen = int(self.query("SELECT count() FROM rounds_v")[0][0])
            except OSError:
                seen = -1
            if seen >= rounds:
                return
            time.sleep(1)
        try:
            metrics = self.get("/metrics")
        except OSError as exc:
            metrics = f"(no metrics: {exc})"
        raise AssertionError(
            f"{seen} of {rounds} rounds judged in {timeout} s; metrics {metrics}; {self.log_tail()}"
        )


def new_deployment(bootstrap: str, root: Path, web_port: int) -> Deployment:
    deployment = Deployment(bootstrap, root, f"t{uuid.uuid4().hex[:10]}-", web_port)
    create_topics(KafkaAccess(bootstrap), deployment.prefix)
    return deployment


@dataclass
class SimulatedFloor:
    config: Path
    events: list[bytes]
    truth: set[tuple[str, str, str]]
    rounds: int


def simulated_floor(
    root: Path,
    tables: int,
    rounds: int,
    seed: int,
    games: tuple[SimulatedGame, ...] = FIRST_TWO,
) -> SimulatedFloor:
    floor = Floor(
        tables=tables,
        rounds=rounds,
        seed=seed,
        error_rate=0.15,
        jackpot_rate=0.05,
        games=games,
    )
    config = root / "tables.yaml"
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    events = [encode_event(e) for e in floor.events()]
    truth = {(t.table_id, t.round_id or "", t.check) for t in floor.truth()}
    return SimulatedFloor(config, events, truth, rounds)


def write_jsonl(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path
