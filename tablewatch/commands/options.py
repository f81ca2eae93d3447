"""Options several commands share: Kafka (servers, security, the wait at start), the
store's DSN, the topics' prefix.

Every option read from the environment declares its variable (``envvar``) and shows it
in ``--help`` (``show_envvar``); no module reads the environment otherwise. Names are
``TABLEWATCH_*``.

:func:`kafka_access_options` adds ``--bootstrap`` and the security options and hands the
command one ``kafka`` argument, a :class:`~tablewatch.kafka_access.KafkaAccess`; options
that cannot work together stop the command with one line naming the option (exit 2).
:func:`kafka_security_options` adds the security options alone, for a command that names
its broker with an option of its own.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tablewatch.kafka_access import (
    DEFAULT_BOOTSTRAP,
    MECHANISMS,
    OPTIONS,
    PASSWORD_ENV,
    PROTOCOLS,
    KafkaAccess,
    KafkaAccessError,
    Secret,
)
from tablewatch.store.dsn import DEFAULT_DSN
from tablewatch.store.dsn import ENV_VAR as DSN_ENV

F = TypeVar("F", bound=Callable[..., Any])
if TYPE_CHECKING:
    from tablewatch.alerts.rules_file import AlertRules

EXIT_BAD_OPTIONS = 2
KAFKA_WAIT_S = 60.0
KAFKA_WAIT_ENV = "TABLEWATCH_KAFKA_WAIT"
TOPICS_PREFIX_ENV = "TABLEWATCH_TOPICS_PREFIX"


def _path() -> click.Path:
    return click.Path(dir_okay=False, path_type=Path)


# KafkaAccess field -> (click parameter name, what the option takes)
_ACCESS: dict[str, tuple[str, dict[str, Any]]] = {
    "bootstrap": (
        "bootstrap",
        {
            "default": DEFAULT_BOOTSTRAP,
            "show_default": True,
            "help": "Kafka bootstrap servers (host:port, comma-separated).",
        },
    ),
    "security_protocol": (
        "kafka_security_protocol",
        {
            "type": click.Choice(PROTOCOLS),
            "default": "PLAINTEXT",
            "show_default": True,
            "help": "How to talk to Kafka: in the clear, TLS, SASL, or SASL over TLS.",
        },
    ),
    "sasl_mechanism": (
        "kafka_sasl_mechanism",
        {
            "type": click.Choice(MECHANISMS),
            "help": "SASL mechanism (SASL_PLAINTEXT, SASL_SSL).",
        },
    ),
    "username": ("kafka_username", {"help": "SASL user name."}),
    "password": (
        "kafka_password",
        {
            "help": f"SASL password. Set {PASSWORD_ENV} rather than this option: a command "
            "line can be read by other users of the machine. Never printed.",
        },
    ),
    "ca_file": (
        "kafka_ca_file",
        {
            "type": _path(),
            "help": "CA certificates (PEM) the broker's certificate is checked against "
            "(SSL, SASL_SSL)  [default: the system's]",
        },
    ),
    "cert_file": (
        "kafka_cert_file",
        {"type": _path(), "help": "This client's certificate (PEM), for TLS client auth."},
    ),
    "key_file": (
        "kafka_key_file",
        {
            "type": _path(),
            "help": "The certificate's private key (PEM, unencrypted), if "
            "not in the certificate file.",
        },
    ),
}


def _declared(name: str) -> Callable[[F], F]:
    param, settings = _ACCESS[name]
    option, env = OPTIONS[name]
    return click.option(option, param, envvar=env, show_envvar=True, **settings)


def kafka_access(**values: Any) -> KafkaAccess:
    """The :class:`KafkaAccess` of the options' values (click's parameter names)."""
    fields = {name: values[param] for name, (param, _) in _ACCESS.items()}
    fields = {name: None if value == "" else value for name, value in fields.items()}
    for name in ("security_protocol", "sasl_mechanism"):
        if fields[name] is not None:
            fields[name] = str(fields[name]).upper()
    if fields["password"] is not None:
        fields["password"] = Secret(fields["password"])
    fields["bootstrap"] = fields["bootstrap"] or DEFAULT_BOOTSTRAP
    fields["security_protocol"] = fields["security_protocol"] or "PLAINTEXT"
    return KafkaAccess(**fields)


def kafka_access_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--bootstrap`` and the Kafka security options; the command receives ``kafka``."""

    @functools.wraps(command)
    def with_access(**kwargs: Any) -> Any:
        values = {param: kwargs.pop(param) for param, _ in _ACCESS.values()}
        try:
            kwargs["kafka"] = kafka_access(**values)
        except KafkaAccessError as exc:
            fail(str(exc))
        return command(**kwargs)

    return _declaring(with_access, list(_ACCESS))


def kafka_security_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The Kafka security options without ``--bootstrap``, for a command that names its
    broker otherwise (``verify --kafka BOOTSTRAP``): the command receives
    ``kafka_access_for``, which makes the :class:`KafkaAccess` of a broker (raising
    :class:`KafkaAccessError`) when the command needs one, so that the options, or their
    variables set for other commands, are checked only then."""
    names = [name for name in _ACCESS if name != "bootstrap"]

    @functools.wraps(command)
    def with_security(**kwargs: Any) -> Any:
        values = {_ACCESS[name][0]: kwargs.pop(_ACCESS[name][0]) for name in names}
        kwargs["kafka_access_for"] = functools.partial(kafka_access, **values)
        return command(**kwargs)

    return _declaring(with_security, names)


def _declaring(command: Callable[..., Any], names: list[str]) -> Callable[..., Any]:
    """``command`` with the options of ``names`` (fields of :data:`_ACCESS`), in that order."""
    decorated = command
    for name in reversed(names):
        decorated = _declared(name)(decorated)
    return decorated


def fail(message: str, code: int = EXIT_BAD_OPTIONS) -> None:
    """Stop the running command with ``tablewatch COMMAND: message`` on stderr."""
    context = click.get_current_context()
    click.echo(f"tablewatch {context.command.name}: {message}", err=True)
    sys.exit(code)


def kafka_wait_option(command: F) -> F:
    return click.option(
        "--kafka-wait",
        envvar=KAFKA_WAIT_ENV,
        show_envvar=True,
        default=KAFKA_WAIT_S,
        show_default=True,
        type=click.FloatRange(min=0),
        metavar="SECONDS",
        help="At start, how long to keep trying to reach Kafka; then exit 2.",
    )(command)


def topics_prefix_option(command: F) -> F:
    return click.option(
        "--topics-prefix",
        envvar=TOPICS_PREFIX_ENV,
        show_envvar=True,
        default="",
        help="Put before every topic name (tests, staging): PREFIXtable-events and so on.",
    )(command)


def dsn_option(command: F) -> F:
    return click.option(
        "--dsn",
        envvar=DSN_ENV,
        default=DEFAULT_DSN,
        show_default=True,
        show_envvar=True,
        help="chdb:///<dir> (embedded; relative to the current directory, "
        "chdb:////abs for an absolute one) or http(s)://user:pass@host:8123/db.",
    )(command)


def wait_for_kafka_or_exit(
    kafka: KafkaAccess, wait_s: float, attempt: Callable[[float], None] | None = None
) -> None:
    """At start, until Kafka is reachable (:func:`tablewatch.kafka_wait.wait_for_kafka`),
    each failed try a line on stderr; else exit 2 with one line saying why. ``attempt``:
    how the command's own client starts (default: an aiokafka client's bootstrap, as the
    worker's clients start)."""
    from tablewatch.kafka_wait import (
        KafkaUnreachable,
        aiokafka_attempt,
        logged_to_stderr,
        wait_for_kafka,
    )

    try:
        with logged_to_stderr():
            wait_for_kafka(kafka, attempt or aiokafka_attempt(kafka), wait_s)
    except KafkaUnreachable as exc:
        fail(str(exc))


def rules_or_exit(command: str, rules_path: Path | None) -> AlertRules | None:
    """The alert rules at ``rules_path`` (None when none is given); a file refused ends
    ``tablewatch COMMAND`` with exit 2, naming its problems."""
    if rules_path is None:
        return None
    from tablewatch.alerts.rules_file import RulesError, load_rules

    try:
        return load_rules(rules_path)
    except RulesError as exc:
        click.echo(f"tablewatch {command}: --rules: {'; '.join(exc.problems)}", err=True)
        sys.exit(EXIT_BAD_OPTIONS)
