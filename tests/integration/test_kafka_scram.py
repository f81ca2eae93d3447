"""SASL/SCRAM for real: a second local broker with a SCRAM listener (``deploy/kafka.sh`` with
``KAFKA_SASL_PORT`` and ``KAFKA_SCRAM_USERS``), the topics made, a floor ingested and judged
through it; a wrong password is refused at start with one line, exit 2, never shown.

The broker's PLAINTEXT listener is used only to read back what was written through SCRAM.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tablewatch.kafka_access import KafkaAccess, Secret
from tablewatch.services import child_service, create_topics, free_port, worker_args, worker_query
from tablewatch.store.client import open_store
from tablewatch.store.migrate import migrate
from tablewatch.topics import Topics
from tests.ingest.kafka_topics import read_between
from tests.integration.pipeline import simulated_floor, write_jsonl

pytestmark = pytest.mark.integration

REPO = Path(__file__).parents[2]
USER = "tablewatch"


@dataclass(frozen=True)
class ScramBroker:
    plaintext: str  # to read back
    sasl: str
    password: str

    def access(self, mechanism: str, password: str | None = None) -> KafkaAccess:
        return KafkaAccess(self.sasl, "SASL_PLAINTEXT", mechanism, USER,
                           Secret(password or self.password))  # fmt: skip


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScramBroker]:
    if shutil.which("java") is None:
        pytest.skip("no java")
    plain, controller, sasl = free_port(), free_port(), free_port()
    password = secrets.token_urlsafe(16)
    env = {
        **os.environ,
        "KAFKA_PORT": str(plain),
        "KAFKA_CONTROLLER_PORT": str(controller),
        "KAFKA_SASL_PORT": str(sasl),
        "KAFKA_SCRAM_USERS": f"{USER}:{password}",
        "KAFKA_RUN_DIR": str(tmp_path_factory.mktemp("scram-broker")),
        "KAFKA_HEAP_OPTS": "-Xms128m -Xmx384m",
    }
    script = str(REPO / "deploy" / "kafka.sh")
    started = subprocess.run([script, "start"], env=env, capture_output=True, text=True,
                             timeout=240)  # fmt: skip
    try:
        assert started.returncode == 0, started.stderr[-3000:]
        yield ScramBroker(f"127.0.0.1:{plain}", f"127.0.0.1:{sasl}", password)
    finally:
        subprocess.run([script, "stop"], env=env, capture_output=True, timeout=120)


def tablewatch(
    args: list[str], password: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLEWATCH_")}
    env["TABLEWATCH_KAFKA_PASSWORD"] = password
    return subprocess.run([sys.executable, "-m", "tablewatch.cli", *args], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


def scram_options(broker: ScramBroker, mechanism: str) -> list[str]:
    return ["--bootstrap", broker.sasl, "--kafka-security-protocol", "SASL_PLAINTEXT",
            "--kafka-sasl-mechanism", mechanism, "--kafka-username", USER]  # fmt: skip


def test_a_floor_ingested_and_judged_through_scram(broker: ScramBroker, tmp_path: Path) -> None:
    floor = simulated_floor(tmp_path, tables=3, rounds=12, seed=11)
    prefix = f"scram{uuid.uuid4().hex[:8]}-"
    topics = Topics.prefixed(prefix)
    create_topics(broker.access("SCRAM-SHA-512"), prefix)  # kafka-python's admin client

    # tablewatch ingest (kafka-python's producer), SCRAM-SHA-256
    events = write_jsonl(tmp_path / "events.jsonl", floor.events)
    ingest = tablewatch(["ingest", str(events), *scram_options(broker, "SCRAM-SHA-256"),
                         "--topics-prefix", prefix], broker.password)  # fmt: skip
    assert ingest.returncode == 0, ingest.stderr
    assert ingest.stdout.startswith(f"{len(floor.events):,} accepted, 0 duplicates, 0 rejected")
    assert broker.password not in ingest.stdout + ingest.stderr

    # the worker (Faust and its aiokafka clients), SCRAM-SHA-512: consumes, judges, produces
    kafka = broker.access("SCRAM-SHA-512")
    port = free_port()
    args = worker_args(floor.config, kafka=kafka, dsn=f"chdb:///{tmp_path / 'chdb'}",
                       web_port=port, prefix=prefix, data_dir=tmp_path / "worker")  # fmt: skip
    assert broker.password not in " ".join(args)
    log = tmp_path / "worker.log"
    with child_service(args, f"http://127.0.0.1:{port}/health", log, env=kafka.child_env()):
        deadline = time.monotonic() + 180
        judged = 0
        while judged < floor.rounds and time.monotonic() < deadline:
            time.sleep(1)
            judged = int(worker_query(port, "SELECT count() FROM rounds_v")[0][0])
        assert judged == floor.rounds, log.read_text()[-3000:]
        found = worker_query(port, "SELECT table_id, round_id, check FROM findings_v")
        assert {(str(t), str(r), str(c)) for t, r, c in found} == floor.truth
    assert broker.password not in log.read_text()
    # what the worker produced through SCRAM, read back in the clear
    rounds = read_between(broker.plaintext, topics.rounds, {})
    assert len({r.value for r in rounds}) == floor.rounds

    # tablewatch verify --kafka (kafka-python's consumer), SCRAM-SHA-256: the chains the
    # worker stored, recomputed from the events topic read through SCRAM, hold
    verify = ["verify", "--dsn", f"chdb:///{tmp_path / 'chdb'}", "--kafka", broker.sasl,
              "--topic", topics.events, "--config", str(floor.config),
              *scram_options(broker, "SCRAM-SHA-256")[2:]]  # fmt: skip
    # (the worker signs nothing here: nothing broken, and nothing proven, exit 3)
    verified = tablewatch(verify, broker.password)
    assert verified.returncode == 3, verified.stdout + verified.stderr
    assert verified.stdout.splitlines()[-2] == (
        f"verify: 3 tables, 3 consistent, 0 broken (the topic {topics.events})"
    )
    assert broker.password not in verified.stdout + verified.stderr
    # the password's variable set, the security options left out: refused, naming them
    plain = tablewatch(verify[: verify.index("--kafka-security-protocol")], broker.password)
    assert plain.returncode == 2, plain.stdout + plain.stderr
    assert plain.stderr == (
        "tablewatch verify: --kafka-password (TABLEWATCH_KAFKA_PASSWORD): needs "
        "--kafka-security-protocol SASL_PLAINTEXT or SASL_SSL (it is PLAINTEXT)\n"
    )
    # no password at all: the SASL listener is not spoken to, exit 2 in one line
    bare = tablewatch(verify[: verify.index("--kafka-security-protocol")], "")
    assert bare.returncode == 2, bare.stdout + bare.stderr
    assert "Traceback" not in bare.stderr
    assert len(bare.stderr.splitlines()) == 1, bare.stderr
    assert bare.stderr.startswith("tablewatch verify: "), bare.stderr
    assert f"at {broker.sasl} (PLAINTEXT)" in bare.stderr, bare.stderr


def test_a_wrong_password_is_refused_at_start(broker: ScramBroker, tmp_path: Path) -> None:
    wrong = "not-" + broker.password
    events = write_jsonl(tmp_path / "one.jsonl", simulated_floor(tmp_path, 1, 1, 3).events[:1])
    ingest = tablewatch(["ingest", str(events), *scram_options(broker, "SCRAM-SHA-256"),
                         "--kafka-wait", "1"], wrong)  # fmt: skip
    worker = tablewatch(
        ["worker", "--config", str(tmp_path / "tables.yaml"),
         *scram_options(broker, "SCRAM-SHA-512"),
         "--dsn", f"chdb:///{tmp_path / 'chdb'}", "--data-dir", str(tmp_path / "worker"),
         "--web-port", str(free_port()), "--kafka-wait", "1"],
        wrong,
    )  # fmt: skip
    store = f"chdb:///{tmp_path / 'verify-chdb'}"
    with open_store(store) as client:
        migrate(client)  # a store with the chain, none of it stored yet
    verify = tablewatch(
        ["verify", "--dsn", store, "--kafka", broker.sasl,
         *scram_options(broker, "SCRAM-SHA-512")[2:]],
        wrong,
    )  # fmt: skip
    output = verify.stdout + verify.stderr
    assert verify.returncode == 2, output
    assert "Traceback" not in output
    assert wrong not in output and broker.password not in output
    assert verify.stderr.splitlines()[-1].startswith(
        f"tablewatch verify: cannot reach Kafka at {broker.sasl} "
        f"(SASL_PLAINTEXT SCRAM-SHA-512 as {USER} (password set)): "
    ), verify.stderr
    for command, result in (("ingest", ingest), ("worker", worker)):
        output = result.stdout + result.stderr
        assert result.returncode == 2, output
        assert "Traceback" not in output
        assert wrong not in output and broker.password not in output
        last = result.stderr.splitlines()[-1]
        assert last.startswith(f"tablewatch {command}: Kafka at {broker.sasl} not reachable: "
                               "gave up after 1 s (--kafka-wait)"), last  # fmt: skip
        # the broker closes the connection on a failed SCRAM exchange: kafka-python words
        # it as an authentication failure or, when the close wins the race, a disconnect
        assert "uthentication" in last or "disconnected" in last, last
