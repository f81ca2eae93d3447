"""KafkaAccess: what each Kafka client is given for each protocol and mechanism, the password
kept out of every text, the combinations refused (naming the option), PLAINTEXT as before."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import faust
import pytest
from faust.transport.drivers.aiokafka import credentials_to_aiokafka_auth
from rich.console import Console

from tablewatch.ingest.kafka_producer import KafkaSettings, KafkaSink
from tablewatch.kafka_access import (
    MECHANISMS,
    KafkaAccess,
    KafkaAccessError,
    Secret,
    host_port,
)
from tablewatch.processors.app import _App, broker_settings
from tablewatch.processors.settings import WorkerSettings

PASSWORD = "pw-7c1f-never-shown"
SASL = [("SASL_PLAINTEXT", m) for m in MECHANISMS] + [("SASL_SSL", m) for m in MECHANISMS]


@pytest.fixture(scope="session")
def pem(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A CA, a client certificate it signed with its key, and an encrypted key (openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    d = tmp_path_factory.mktemp("pem")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=d)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
        "-days", "2", "-subj", "/CN=tablewatch test CA")  # fmt: skip
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr",
        "-subj", "/CN=tablewatch")  # fmt: skip
    run("x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "client.pem", "-days", "2")  # fmt: skip
    run("pkey", "-in", "client.key", "-aes256", "-passout", "pass:x", "-out", "encrypted.key")
    (d / "both.pem").write_bytes((d / "client.pem").read_bytes() + (d / "client.key").read_bytes())
    (d / "not-pem.txt").write_text("hello\n")
    names = {
        "ca": "ca.pem",
        "client": "client.pem",
        "key": "client.key",
        "encrypted": "encrypted.key",
        "both": "both.pem",
        "not-pem": "not-pem.txt",
    }
    return {name: d / file for name, file in names.items()}


def sasl(protocol: str, mechanism: str, ca: Path | None = None) -> KafkaAccess:
    return KafkaAccess(
        "k1:9093,k2:9093", protocol, mechanism, "alice", Secret(PASSWORD), ca_file=ca
    )


def texts(access: KafkaAccess) -> list[str]:
    """Everything a log line, a status or a message could show of it."""
    return [repr(access), str(access), str(access.status()), access.describe(),
            " ".join(access.child_args()), f"{access}", repr(access.password)]  # fmt: skip


# ---- PLAINTEXT: the default, as before ----------------------------------------------------


def test_plaintext_is_the_default_and_gives_only_the_servers() -> None:
    access = KafkaAccess()
    assert (access.bootstrap, access.security_protocol) == ("127.0.0.1:9092", "PLAINTEXT")
    assert access.kafka_python() == {"bootstrap_servers": ["127.0.0.1:9092"]}
    assert access.aiokafka() == {"bootstrap_servers": ["127.0.0.1:9092"]}
    assert access.faust_credentials() is None
    assert access.faust_broker() == "kafka://127.0.0.1:9092"
    assert access.ssl_context() is None
    assert access.child_args() == ["--bootstrap", "127.0.0.1:9092"]
    assert access.child_env() == {}
    assert access.status()["password"] == "unset"


def test_the_ingest_producer_is_configured_as_before_in_plaintext() -> None:
    sink = KafkaSink(KafkaSettings(KafkaAccess("h1:9092, h2:9092")))
    assert sink._config() == {
        "bootstrap_servers": ["h1:9092", "h2:9092"],
        "client_id": "tablewatch-ingest",
        "acks": "all",
        "enable_idempotence": True,
        "max_in_flight_requests_per_connection": 5,
        "linger_ms": 5,
        "batch_size": 256 * 1024,
        "delivery_timeout_ms": 30_000,
        "request_timeout_ms": 10_000,
        "max_block_ms": 10_000,
        "bootstrap_timeout_ms": 10_000,
    }


def test_the_worker_gives_faust_the_broker_and_no_credentials_in_plaintext() -> None:
    settings = WorkerSettings(Path("tables.yaml"), kafka=KafkaAccess("h:9092"))
    assert broker_settings(settings) == {"broker": "kafka://h:9092", "broker_credentials": None}


# ---- each protocol and mechanism ---------------------------------------------------------


@pytest.mark.parametrize(("protocol", "mechanism"), SASL)
def test_sasl_parameters_of_kafka_python_and_aiokafka(
    protocol: str, mechanism: str, pem: dict[str, Path]
) -> None:
    access = sasl(protocol, mechanism, pem["ca"] if protocol == "SASL_SSL" else None)
    expected: dict[str, Any] = {
        "bootstrap_servers": ["k1:9093", "k2:9093"],
        "security_protocol": protocol,
        "sasl_mechanism": mechanism,
        "sasl_plain_username": "alice",
        "sasl_plain_password": PASSWORD,
    }
    if protocol == "SASL_SSL":
        expected["ssl_context"] = access.ssl_context()
    assert access.kafka_python() == expected
    assert access.aiokafka() == expected


def test_ssl_parameters_and_the_context(pem: dict[str, Path]) -> None:
    access = KafkaAccess("k:9093", "SSL", ca_file=pem["ca"], cert_file=pem["client"],
                         key_file=pem["key"])  # fmt: skip
    context = access.ssl_context()
    assert isinstance(context, ssl.SSLContext)
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)
    subjects = {c["subject"] for c in context.get_ca_certs()}
    assert subjects == {((("commonName", "tablewatch test CA"),),)}
    expected = {"bootstrap_servers": ["k:9093"], "security_protocol": "SSL", "ssl_context": context}
    assert access.kafka_python() == expected == access.aiokafka()
    credentials = access.faust_credentials()
    assert isinstance(credentials, faust.SSLCredentials) and credentials.context is context
    # a certificate file holding its key too, and TLS with the system's CAs
    KafkaAccess("k:9093", "SSL", cert_file=pem["both"])
    assert KafkaAccess("k:9093", "SSL").ssl_context() is not None


@pytest.mark.parametrize(("protocol", "mechanism"), SASL)
def test_faust_credentials_give_its_aiokafka_clients_the_same(
    protocol: str, mechanism: str, pem: dict[str, Path]
) -> None:
    access = sasl(protocol, mechanism, pem["ca"] if protocol == "SASL_SSL" else None)
    credentials = access.faust_credentials()
    assert isinstance(credentials, faust.SASLCredentials)
    assert (credentials.username, credentials.password) == ("alice", PASSWORD)
    assert credentials.mechanism.value == mechanism
    assert credentials.protocol.value == protocol
    auth = dict(credentials_to_aiokafka_auth(credentials))
    wanted = {k: v for k, v in access.aiokafka().items() if k != "bootstrap_servers"}
    assert auth == {**wanted, "ssl_context": access.ssl_context()}


@pytest.mark.parametrize(
    ("protocol", "mechanism"), [("SSL", None), ("SASL_PLAINTEXT", "SCRAM-SHA-256"),
                                ("SASL_SSL", "SCRAM-SHA-512"), ("PLAINTEXT", None)],
)  # fmt: skip
def test_every_client_faust_makes_for_the_worker_gets_them(
    protocol: str, mechanism: str | None, pem: dict[str, Path]
) -> None:
    """The consumer, the state table's consumer and the producer Faust makes for the
    worker's app class, with what ``broker_settings`` gives it."""
    tls = protocol in ("SSL", "SASL_SSL")
    if mechanism is None:
        access = KafkaAccess("k1:9093", protocol, ca_file=pem["ca"] if tls else None)
    else:
        access = sasl(protocol, mechanism, pem["ca"] if tls else None)
    settings = WorkerSettings(Path("tables.yaml"), kafka=access)

    async def clients() -> list[Any]:
        app = _App("tw-access-test", **broker_settings(settings))
        thread = app.consumer._thread  # type: ignore[attr-defined]
        made = [app.producer._new_producer(),  # type: ignore[attr-defined]
                thread._create_worker_consumer(app.transport),  # the agent's
                thread._create_client_consumer(app.transport)]  # the state table's  # fmt: skip
        found = [
            (c._security_protocol, c._sasl_mechanism if access.sasl else None,
             c._sasl_plain_username, c._sasl_plain_password, c._ssl_context, sorted(c.hosts))
            for c in (made[0].client, made[1]._client, made[2]._client)
        ]  # fmt: skip
        for client in made:
            await client.stop()
        return found

    password = PASSWORD if access.sasl else None
    username = "alice" if access.sasl else None
    want = (protocol, mechanism, username, password, access.ssl_context())
    for found in asyncio.run(clients()):
        assert found[:5] == want
        servers = [("k1", 9093), ("k2", 9093)] if access.sasl else [("k1", 9093)]
        assert [h[:2] for h in found[5]] == servers


def test_the_ingest_producer_gets_them(pem: dict[str, Path]) -> None:
    access = sasl("SASL_SSL", "SCRAM-SHA-256", pem["ca"])
    config = KafkaSink(KafkaSettings(access))._config()
    assert {k: config[k] for k in access.kafka_python()} == access.kafka_python()
    assert config["acks"] == "all" and config["enable_idempotence"] is True


def test_the_admin_client_and_lives_consumer_get_them(monkeypatch: pytest.MonkeyPatch) -> None:
    import kafka
    import kafka.admin

    from tablewatch.commands import live
    from tablewatch.services import create_topics

    seen: list[dict[str, Any]] = []

    class Recorder:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            seen.append(kwargs)

        def create_topics(self, topics: list[Any]) -> None:
            seen.append({"topics": [t.name for t in topics]})

        def close(self) -> None:
            pass

        def __iter__(self) -> Iterator[Any]:
            return iter(())

    monkeypatch.setattr(kafka.admin, "KafkaAdminClient", Recorder)
    monkeypatch.setattr(kafka, "KafkaConsumer", Recorder)
    access = sasl("SASL_PLAINTEXT", "SCRAM-SHA-512")
    create_topics(access, "p-")
    names = ["p-table-events", "p-table-events-dlq", "p-rounds", "p-findings"]
    assert seen == [access.kafka_python(), {"topics": names}]
    seen.clear()
    stop = threading.Event()
    stop.set()
    live._print_findings(Console(), access, "p-findings", stop)
    assert seen == [{**access.kafka_python(), "auto_offset_reset": "earliest",
                     "enable_auto_commit": False, "consumer_timeout_ms": 500}]  # fmt: skip


# ---- the password, never shown -----------------------------------------------------------


@pytest.mark.parametrize(("protocol", "mechanism"), SASL)
def test_the_password_is_in_no_text(protocol: str, mechanism: str, pem: dict[str, Path]) -> None:
    access = sasl(protocol, mechanism, pem["ca"] if protocol == "SASL_SSL" else None)
    for text in texts(access):
        assert PASSWORD not in text
    assert access.status()["password"] == "set"
    assert "password set" in access.describe()
    assert access.child_env() == {"TABLEWATCH_KAFKA_PASSWORD": PASSWORD}
    assert PASSWORD not in repr(access.faust_credentials())
    assert access.redact(f"failed to log in with {PASSWORD}!") == "failed to log in with ***!"


def test_a_secret_shows_as_stars_and_is_not_pickled() -> None:
    import pickle

    secret = Secret(PASSWORD)
    assert str(secret) == repr(secret) == f"{secret}" == "Secret('***')"
    assert secret == Secret(PASSWORD) and secret != Secret("other")
    with pytest.raises(TypeError):
        pickle.dumps(secret)


def test_a_refusal_never_shows_the_password() -> None:
    with pytest.raises(KafkaAccessError) as info:
        KafkaAccess("h:1", "PLAINTEXT", password=Secret(PASSWORD))
    assert PASSWORD not in str(info.value) and PASSWORD not in repr(info.value)


# ---- combinations refused, naming the option ---------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"security_protocol": "TLS"}, "--kafka-security-protocol (TABLEWATCH_KAFKA_SECURITY_"
         "PROTOCOL): 'TLS' is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"),
        ({"security_protocol": "SASL_SSL"}, "--kafka-sasl-mechanism (TABLEWATCH_KAFKA_SASL_"
         "MECHANISM): is required with --kafka-security-protocol SASL_SSL (one of "
         "SCRAM-SHA-256, SCRAM-SHA-512, PLAIN)"),
        ({"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "GSSAPI"},
         "--kafka-sasl-mechanism (TABLEWATCH_KAFKA_SASL_MECHANISM): 'GSSAPI' is not one of"),
        ({"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "SCRAM-SHA-256",
          "password": Secret("p")},
         "--kafka-username (TABLEWATCH_KAFKA_USERNAME): is required with "
         "--kafka-sasl-mechanism SCRAM-SHA-256"),
        ({"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN", "username": "a"},
         "--kafka-password (TABLEWATCH_KAFKA_PASSWORD): is required with "
         "--kafka-sasl-mechanism PLAIN (set it in TABLEWATCH_KAFKA_PASSWORD)"),
        ({"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN", "username": "a",
          "password": Secret("")}, "--kafka-password (TABLEWATCH_KAFKA_PASSWORD): is required"),
        ({"sasl_mechanism": "SCRAM-SHA-512"}, "--kafka-sasl-mechanism (TABLEWATCH_KAFKA_SASL_"
         "MECHANISM): needs --kafka-security-protocol SASL_PLAINTEXT or SASL_SSL (it is "
         "PLAINTEXT)"),
        ({"security_protocol": "SSL", "username": "a"}, "--kafka-username (TABLEWATCH_KAFKA_"
         "USERNAME): needs --kafka-security-protocol SASL_PLAINTEXT or SASL_SSL (it is SSL)"),
        ({"ca_file": Path("ca.pem")}, "--kafka-ca-file (TABLEWATCH_KAFKA_CA_FILE): needs "
         "--kafka-security-protocol SSL or SASL_SSL (it is PLAINTEXT)"),
        ({"security_protocol": "SSL", "key_file": Path("k.pem")}, "--kafka-key-file "
         "(TABLEWATCH_KAFKA_KEY_FILE): needs --kafka-cert-file (its certificate)"),
        ({"security_protocol": "SSL", "ca_file": Path("/nowhere/ca.pem")}, "--kafka-ca-file "
         "(TABLEWATCH_KAFKA_CA_FILE): /nowhere/ca.pem: no such file"),
        ({"security_protocol": "SSL", "cert_file": Path("/nowhere/c.pem")}, "--kafka-cert-file "
         "(TABLEWATCH_KAFKA_CERT_FILE): /nowhere/c.pem: no such file"),
        ({"bootstrap": " , "}, "--bootstrap (TABLEWATCH_KAFKA): no server given"),
        ({"bootstrap": "h:x"}, "--bootstrap (TABLEWATCH_KAFKA): 'h:x': the port is not a number"),
    ],
)  # fmt: skip
def test_combinations_that_cannot_work_are_refused_naming_the_option(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(KafkaAccessError) as info:
        KafkaAccess(**kwargs)
    assert str(info.value).startswith(message)
    assert info.value.option == message.split()[0]


@pytest.mark.parametrize(
    ("files", "option", "words"),
    [
        ({"ca_file": "not-pem"}, "--kafka-ca-file", "not PEM certificates"),
        ({"cert_file": "not-pem"}, "--kafka-cert-file", "not a PEM certificate"),
        ({"cert_file": "client", "key_file": "encrypted"}, "--kafka-key-file", "encrypted"),
        ({"cert_file": "ca", "key_file": "key"}, "--kafka-key-file", "belong together"),
    ],
)
def test_tls_files_that_cannot_be_used_are_refused(
    files: dict[str, str], option: str, words: str, pem: dict[str, Path]
) -> None:
    paths: dict[str, Any] = {name: pem[stem] for name, stem in files.items()}
    with pytest.raises(KafkaAccessError) as info:
        KafkaAccess("k:9093", "SSL", **paths)
    assert info.value.option == option
    assert words in str(info.value)


def test_host_port() -> None:
    assert host_port("h:1") == ("h", 1)
    assert host_port(" h ") == ("h", 9092)
    assert host_port("[::1]:9093") == ("::1", 9093)
    assert host_port("::1") == ("::1", 9092)
    with pytest.raises(KafkaAccessError):
        host_port(":9092")
