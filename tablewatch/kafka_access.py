"""How a TableWatch process reaches Kafka: bootstrap servers, TLS and SASL, for every client.

One :class:`KafkaAccess` per process, made from the command's options
(:mod:`tablewatch.commands.options`), gives each client library its parameters:

- :meth:`KafkaAccess.kafka_python`: kafka-python's ``KafkaProducer`` (ingest),
  ``KafkaAdminClient`` (:func:`tablewatch.services.create_topics`) and ``KafkaConsumer``
  (``tablewatch live``);
- :meth:`KafkaAccess.faust_credentials`: Faust's ``broker_credentials``, from which Faust
  makes the parameters of every aiokafka client it creates (the worker's consumer, the
  state table's consumer, the producer, topic creation);
- :meth:`KafkaAccess.aiokafka`: the same parameters for an aiokafka client made here
  (the worker's wait for Kafka, :mod:`tablewatch.kafka_wait`).

``PLAINTEXT`` (the default) adds nothing to what the clients are given but the bootstrap
servers. The password is a :class:`Secret`: it is in no repr, status, log line or error;
a status says only whether it is set. A combination that cannot work is refused when the
object is made, with a :class:`KafkaAccessError` naming the option.
"""

from __future__ import annotations

import hmac
import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

DEFAULT_BOOTSTRAP: Final = "127.0.0.1:9092"
DEFAULT_PORT: Final = 9092
PROTOCOLS: Final = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS: Final = ("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN")
TLS_PROTOCOLS: Final = frozenset({"SSL", "SASL_SSL"})
SASL_PROTOCOLS: Final = frozenset({"SASL_PLAINTEXT", "SASL_SSL"})

# field -> (option, environment variable): what messages name and the options declare
OPTIONS: Final = {
    "bootstrap": ("--bootstrap", "TABLEWATCH_KAFKA"),
    "security_protocol": ("--kafka-security-protocol", "TABLEWATCH_KAFKA_SECURITY_PROTOCOL"),
    "sasl_mechanism": ("--kafka-sasl-mechanism", "TABLEWATCH_KAFKA_SASL_MECHANISM"),
    "username": ("--kafka-username", "TABLEWATCH_KAFKA_USERNAME"),
    "password": ("--kafka-password", "TABLEWATCH_KAFKA_PASSWORD"),
    "ca_file": ("--kafka-ca-file", "TABLEWATCH_KAFKA_CA_FILE"),
    "cert_file": ("--kafka-cert-file", "TABLEWATCH_KAFKA_CERT_FILE"),
    "key_file": ("--kafka-key-file", "TABLEWATCH_KAFKA_KEY_FILE"),
}
PASSWORD_ENV: Final = OPTIONS["password"][1]


class Secret:
    """A string that shows as ``***``: ``str``, ``repr`` and f-strings never give it away,
    only :meth:`reveal` (for the client library that sends it)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and hmac.compare_digest(
            self._value.encode(), other._value.encode()
        )

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __reduce__(self) -> Any:
        raise TypeError("a Secret is not pickled")


class KafkaAccessError(ValueError):
    """Options that cannot reach Kafka together; the message starts with the option."""

    def __init__(self, name: str, message: str) -> None:
        option, env = OPTIONS[name]
        self.option = option
        super().__init__(f"{option} ({env}): {message}")


def _option(name: str) -> str:
    return OPTIONS[name][0]


@dataclass(frozen=True, slots=True)
class KafkaAccess:
    """Bootstrap servers (comma-separated ``host:port``) and how to authenticate to them."""

    bootstrap: str = DEFAULT_BOOTSTRAP
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    username: str | None = None
    password: Secret | None = None
    ca_file: Path | None = None  # the CA certificates (PEM) the broker's is checked against
    cert_file: Path | None = None  # this client's certificate (PEM), for TLS client auth
    key_file: Path | None = None  # its private key (PEM, not encrypted), if not in cert_file
    _ssl: ssl.SSLContext | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        protocol = self.security_protocol
        if protocol not in PROTOCOLS:
            raise KafkaAccessError(
                "security_protocol", f"{protocol!r} is not one of {', '.join(PROTOCOLS)}"
            )
        if not self.servers:
            raise KafkaAccessError("bootstrap", "no server given (host:port, comma-separated)")
        for server in self.servers:
            host_port(server)  # raises on a bad one
        if protocol in SASL_PROTOCOLS:
            self._check_sasl(protocol)
        else:
            for name in ("sasl_mechanism", "username", "password"):
                if getattr(self, name) is not None:
                    raise KafkaAccessError(
                        name,
                        f"needs {_option('security_protocol')} SASL_PLAINTEXT or SASL_SSL "
                        f"(it is {protocol})",
                    )
        files = ("ca_file", "cert_file", "key_file")
        if protocol not in TLS_PROTOCOLS:
            for name in files:
                if getattr(self, name) is not None:
                    raise KafkaAccessError(
                        name,
                        f"needs {_option('security_protocol')} SSL or SASL_SSL (it is {protocol})",
                    )
            return
        if self.key_file is not None and self.cert_file is None:
            raise KafkaAccessError("key_file", f"needs {_option('cert_file')} (its certificate)")
        for name in files:
            path = getattr(self, name)
            if path is not None and not Path(path).is_file():
                raise KafkaAccessError(name, f"{path}: no such file")
        object.__setattr__(self, "_ssl", self._make_ssl_context())

    def _check_sasl(self, protocol: str) -> None:
        mechanism = self.sasl_mechanism
        if mechanism is None:
            raise KafkaAccessError(
                "sasl_mechanism",
                f"is required with {_option('security_protocol')} {protocol} "
                f"(one of {', '.join(MECHANISMS)})",
            )
        if mechanism not in MECHANISMS:
            raise KafkaAccessError(
                "sasl_mechanism", f"{mechanism!r} is not one of {', '.join(MECHANISMS)}"
            )
        if not self.username:
            raise KafkaAccessError(
                "username", f"is required with {_option('sasl_mechanism')} {mechanism}"
            )
        if self.password is None or not self.password.reveal():
            raise KafkaAccessError(
                "password",
                f"is required with {_option('sasl_mechanism')} {mechanism} "
                f"(set it in {PASSWORD_ENV})",
            )

    def _make_ssl_context(self) -> ssl.SSLContext:
        """Verify the broker (its certificate and host name) against ``ca_file``, else the
        system's CAs; present ``cert_file`` when given."""
        try:
            context = ssl.create_default_context(
                cafile=str(self.ca_file) if self.ca_file is not None else None
            )
        except (OSError, ssl.SSLError) as exc:
            raise KafkaAccessError(
                "ca_file", f"{self.ca_file}: not PEM certificates ({exc})"
            ) from None
        if self.cert_file is not None:
            key = str(self.key_file) if self.key_file is not None else None
            try:
                # no password: an encrypted key fails here instead of prompting
                context.load_cert_chain(str(self.cert_file), key, password=_no_password)
            except (OSError, ssl.SSLError) as exc:
                name = "key_file" if self.key_file is not None else "cert_file"
                raise KafkaAccessError(
                    name,
                    f"{getattr(self, name)}: not a PEM certificate and unencrypted key "
                    f"that belong together ({exc})",
                ) from None
        return context

    # ---- what each client is given ---------------------------------------------

    @property
    def servers(self) -> list[str]:
        return [s.strip() for s in self.bootstrap.split(",") if s.strip()]

    @property
    def tls(self) -> bool:
        return self.security_protocol in TLS_PROTOCOLS

    @property
    def sasl(self) -> bool:
        return self.security_protocol in SASL_PROTOCOLS

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context every client shares (None without TLS)."""
        return self._ssl

    def _security(self) -> dict[str, Any]:
        if self.security_protocol == "PLAINTEXT":
            return {}
        params: dict[str, Any] = {"security_protocol": self.security_protocol}
        if self.tls:
            params["ssl_context"] = self._ssl
        if self.sasl:
            assert self.password is not None
            params.update(
                sasl_mechanism=self.sasl_mechanism,
                sasl_plain_username=self.username,
                sasl_plain_password=self.password.reveal(),
            )
        return params

    def kafka_python(self) -> dict[str, Any]:
        """Keyword arguments of kafka-python's clients (producer, consumer, admin)."""
        return {"bootstrap_servers": self.servers, **self._security()}

    def aiokafka(self) -> dict[str, Any]:
        """Keyword arguments of aiokafka's clients (the same names as kafka-python's)."""
        return {"bootstrap_servers": self.servers, **self._security()}

    def faust_broker(self) -> str:
        """Faust's ``broker`` URL."""
        return f"kafka://{self.bootstrap}"

    def faust_credentials(self) -> Any:
        """Faust's ``broker_credentials``: None (PLAINTEXT), ``faust.SSLCredentials`` or
        ``faust.SASLCredentials`` (over TLS for SASL_SSL)."""
        if self.security_protocol == "PLAINTEXT":
            return None
        import faust

        if not self.sasl:
            return faust.SSLCredentials(self._ssl)
        assert self.password is not None
        return faust.SASLCredentials(
            username=self.username,
            password=self.password.reveal(),
            ssl_context=self._ssl,
            mechanism=self.sasl_mechanism,
        )

    # ---- telling, and handing on ------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What a status shows: everything but the password, which is ``set`` or ``unset``."""
        return {
            "security_protocol": self.security_protocol,
            "sasl_mechanism": self.sasl_mechanism,
            "username": self.username,
            "password": "set" if self.password is not None else "unset",
            "ca_file": str(self.ca_file) if self.ca_file is not None else None,
            "cert_file": str(self.cert_file) if self.cert_file is not None else None,
            "key_file": str(self.key_file) if self.key_file is not None else None,
        }

    def describe(self) -> str:
        """One line for messages: ``SASL_SSL SCRAM-SHA-512 as alice (password set)``."""
        words = [self.security_protocol]
        if self.sasl:
            words.append(f"{self.sasl_mechanism} as {self.username} (password set)")
        if self.ca_file is not None:
            words.append(f"CA {self.ca_file}")
        if self.cert_file is not None:
            words.append(f"certificate {self.cert_file}")
        return " ".join(words)

    def redact(self, text: str) -> str:
        """``text`` with the password, should a library have put it there, as ``***``."""
        if self.password is not None and self.password.reveal():
            return text.replace(self.password.reveal(), "***")
        return text

    def child_args(self) -> list[str]:
        """The options that give a ``tablewatch`` child process this access, but the
        password: that one goes in its environment (:meth:`child_env`), never on a
        command line another user can read."""
        args = [_option("bootstrap"), self.bootstrap]
        if self.security_protocol != "PLAINTEXT":
            args += [_option("security_protocol"), self.security_protocol]
        for name in ("sasl_mechanism", "username", "ca_file", "cert_file", "key_file"):
            value = getattr(self, name)
            if value is not None:
                args += [_option(name), str(value)]
        return args

    def child_env(self) -> dict[str, str]:
        return {PASSWORD_ENV: self.password.reveal()} if self.password is not None else {}


def _no_password() -> str:
    raise ssl.SSLError("the key is encrypted; give an unencrypted key")


def host_port(server: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port``; no port: 9092) as (host, port)."""
    text = server.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    try:
        port = int(port_text) if port_text else DEFAULT_PORT
    except ValueError:
        raise KafkaAccessError("bootstrap", f"{server!r}: the port is not a number") from None
    if not host or not 0 < port < 65536:
        raise KafkaAccessError("bootstrap", f"{server!r}: expected host:port")
    return host, port
