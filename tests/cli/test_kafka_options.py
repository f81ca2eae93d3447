"""The options read from the environment (declared and shown, TABLEWATCH_*), the Kafka options
every Kafka command shares, and combinations refused with one line naming the option."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from tablewatch.cli import main
from tablewatch.commands.options import kafka_access_options
from tablewatch.kafka_access import KafkaAccess

KAFKA_COMMANDS = ("worker", "ingest", "serve-ingest", "live")
KAFKA_ENV = {
    "--bootstrap": "TABLEWATCH_KAFKA",
    "--kafka-security-protocol": "TABLEWATCH_KAFKA_SECURITY_PROTOCOL",
    "--kafka-sasl-mechanism": "TABLEWATCH_KAFKA_SASL_MECHANISM",
    "--kafka-username": "TABLEWATCH_KAFKA_USERNAME",
    "--kafka-password": "TABLEWATCH_KAFKA_PASSWORD",
    "--kafka-ca-file": "TABLEWATCH_KAFKA_CA_FILE",
    "--kafka-cert-file": "TABLEWATCH_KAFKA_CERT_FILE",
    "--kafka-key-file": "TABLEWATCH_KAFKA_KEY_FILE",
    "--kafka-wait": "TABLEWATCH_KAFKA_WAIT",
}
SECRET = "pw-3b9e-not-to-be-seen"


def commands(group: click.Group = main, path: str = "") -> Iterator[tuple[str, click.Command]]:
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None
        yield f"{path}{name}", command
        if isinstance(command, click.Group):
            yield from commands(command, f"{path}{name} ")


def options(command: click.Command) -> dict[str, click.Option]:
    return {p.opts[0]: p for p in command.params if isinstance(p, click.Option)}


def test_every_option_read_from_the_environment_shows_its_variable() -> None:
    for name, command in commands():
        for option in options(command).values():
            if option.envvar:
                assert option.show_envvar, f"tablewatch {name} {option.opts[0]}"
                names = [option.envvar] if isinstance(option.envvar, str) else option.envvar
                for variable in names:
                    assert variable.startswith("TABLEWATCH_"), f"tablewatch {name}: {variable}"


def test_the_kafka_commands_share_the_kafka_options() -> None:
    declared = {name: options(command) for name, command in commands() if name in KAFKA_COMMANDS}
    assert set(declared) == set(KAFKA_COMMANDS)
    for name, found in declared.items():
        assert {o: found[o].envvar for o in KAFKA_ENV if o in found} == KAFKA_ENV, name
    first = declared["worker"]
    for found in declared.values():
        for o in KAFKA_ENV:  # the same declaration: type, default, help
            same = (str(found[o].type), found[o].default, found[o].help)
            assert same == (str(first[o].type), first[o].default, first[o].help)
    for name in ("worker", "ingest", "serve-ingest"):
        assert declared[name]["--topics-prefix"].envvar == "TABLEWATCH_TOPICS_PREFIX"
    assert options(dict(commands())["worker"])["--dsn"].envvar == "TABLEWATCH_DSN"
    for name in ("db migrate", "db summary", "db query"):
        assert options(dict(commands())[name])["--dsn"].envvar == "TABLEWATCH_DSN"


def test_worker_help_shows_the_variables() -> None:
    result = CliRunner().invoke(main, ["worker", "--help"])
    assert result.exit_code == 0
    shown = " ".join(result.output.split())
    for variable in [*KAFKA_ENV.values(), "TABLEWATCH_DSN", "TABLEWATCH_LOG_LEVEL",
                     "TABLEWATCH_WORKER_DIR", "TABLEWATCH_TOPICS_PREFIX"]:  # fmt: skip
        assert f"env var: {variable}" in shown, variable


@click.command()
@kafka_access_options
def shows(kafka: KafkaAccess) -> None:
    click.echo(repr(kafka))
    click.echo(kafka.describe())


def test_the_options_come_from_the_environment() -> None:
    env = {
        "TABLEWATCH_KAFKA": "k1:9093,k2:9093",
        "TABLEWATCH_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
        "TABLEWATCH_KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
        "TABLEWATCH_KAFKA_USERNAME": "alice",
        "TABLEWATCH_KAFKA_PASSWORD": SECRET,
    }
    result = CliRunner().invoke(shows, [], env=env)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1] == "SASL_PLAINTEXT SCRAM-SHA-512 as alice (password set)"
    assert "bootstrap='k1:9093,k2:9093'" in result.output
    assert SECRET not in result.output


def test_plaintext_by_default() -> None:
    result = CliRunner().invoke(shows, [], env={k: "" for k in KAFKA_ENV.values()})
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1] == "PLAINTEXT"
    assert "bootstrap='127.0.0.1:9092'" in result.output


@pytest.mark.parametrize("command", ["worker", "ingest", "serve-ingest", "live"])
@pytest.mark.parametrize(
    ("args", "env", "line"),
    [
        (["--kafka-security-protocol", "SASL_SSL", "--kafka-sasl-mechanism", "PLAIN",
          "--kafka-username", "alice"], {"TABLEWATCH_KAFKA_PASSWORD": ""},
         "--kafka-password (TABLEWATCH_KAFKA_PASSWORD): is required with --kafka-sasl-mechanism "
         "PLAIN (set it in TABLEWATCH_KAFKA_PASSWORD)"),
        (["--kafka-sasl-mechanism", "SCRAM-SHA-256"], {"TABLEWATCH_KAFKA_PASSWORD": SECRET},
         "--kafka-sasl-mechanism (TABLEWATCH_KAFKA_SASL_MECHANISM): needs "
         "--kafka-security-protocol SASL_PLAINTEXT or SASL_SSL (it is PLAINTEXT)"),
        (["--kafka-security-protocol", "SASL_PLAINTEXT", "--kafka-sasl-mechanism",
          "SCRAM-SHA-256"], {"TABLEWATCH_KAFKA_PASSWORD": SECRET},
         "--kafka-username (TABLEWATCH_KAFKA_USERNAME): is required with --kafka-sasl-mechanism "
         "SCRAM-SHA-256"),
        (["--kafka-security-protocol", "SSL", "--kafka-ca-file", "/nowhere/ca.pem"], {},
         "--kafka-ca-file (TABLEWATCH_KAFKA_CA_FILE): /nowhere/ca.pem: no such file"),
    ],
)  # fmt: skip
def test_a_combination_that_cannot_work_is_one_line_and_exit_2(
    command: str, args: list[str], env: dict[str, str], line: str
) -> None:
    first = {"worker": ["--config", "tables.yaml"], "ingest": ["events.jsonl"]}.get(command, [])
    result = CliRunner().invoke(main, [command, *first, *args], env=env)
    assert result.exit_code == 2
    assert result.stderr == f"tablewatch {command}: {line}\n"
    assert result.stdout == ""
    assert SECRET not in result.output
