"""``tablewatch dashboards build|publish|check``: the Grafana dashboards as code.

The SDK and the store's client are imported only when a subcommand runs.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from tablewatch.commands.options import dsn_option, fail

EXIT_PROBLEM = 1
EXIT_BAD_INPUT = 2
ROUNDS_URL_ENV = "TABLEWATCH_ROUNDS_URL"


@click.group()
def dashboards() -> None:
    """The Grafana dashboards: build the JSON and provisioning, publish, check their SQL."""


_rounds_url = click.option(
    "--rounds-url",
    envvar=ROUNDS_URL_ENV,
    show_envvar=True,
    default="http://127.0.0.1:8080",
    show_default=True,
    help="Base URL of the auditor pages: a finding links to {URL}/rounds/{table}/{round}.",
)


@dashboards.command()
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option(
    "--host",
    default="clickhouse",
    show_default=True,
    help="ClickHouse host, as Grafana reaches it.",
)
@click.option("--port", type=click.IntRange(1, 65535), default=8123, show_default=True)
@click.option(
    "--protocol", type=click.Choice(["http", "native"]), default="http", show_default=True
)
@click.option("--secure/--no-secure", default=False, show_default=True, help="TLS to ClickHouse.")
@click.option(
    "--username",
    default="tablewatch_grafana",
    show_default=True,
    help="The read-only user (docs/dashboards.md).",
)
@click.option("--database", default="default", show_default=True)
@click.option(
    "--password-env",
    default="TABLEWATCH_GRAFANA_CLICKHOUSE_PASSWORD",
    show_default=True,
    help="Environment variable of the Grafana container holding that user's password.",
)
@_rounds_url
@click.option(
    "--alerts",
    "alerts_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="An alert rules file: also write Grafana alerting provisioning (rules, contact "
    "points, policies) for the same conditions.",
)
def build(
    out: Path,
    host: str,
    port: int,
    protocol: str,
    secure: bool,
    username: str,
    database: str,
    password_env: str,
    rounds_url: str,
    alerts_path: Path | None,
) -> None:
    """Write the dashboards' JSON and the provisioning files (datasource, provider) to OUT."""
    from tablewatch.dashboards.provisioning import BuildOptions
    from tablewatch.dashboards.provisioning import build as build_files

    options = BuildOptions(
        host=host, port=port, protocol=protocol, secure=secure, username=username,
        database=database, password_env=password_env, rounds_url=rounds_url,
    )  # fmt: skip
    if alerts_path is not None:
        from tablewatch.alerts.grafana import write_alerting
        from tablewatch.alerts.rules_file import RulesError, load_rules
        from tablewatch.dashboards.provisioning import add_writer

        try:
            load_rules(alerts_path)
        except RulesError as exc:
            fail(f"{alerts_path} refused:\n{exc}")
        options.extra["alerts"] = str(alerts_path)
        add_writer(write_alerting)
    for path in build_files(out, options):
        click.echo(str(path))


@dashboards.command()
@click.option("--url", required=True, help="Grafana's base URL, e.g. http://grafana:3000.")
@click.option(
    "--token", envvar="TABLEWATCH_GRAFANA_TOKEN", show_envvar=True, required=True,
    help="A service account token (Editor).",
)  # fmt: skip
@click.option("--message", default=None, help="The version message (default: the package version).")
@_rounds_url
def publish(url: str, token: str, message: str | None, rounds_url: str) -> None:
    """Create the folder if missing and overwrite each dashboard under its stable uid."""
    from importlib.metadata import version

    from grafana_client.client import GrafanaException

    from tablewatch.dashboards.publish import publish as publish_all
    from tablewatch.dashboards.render import Settings

    try:
        done = publish_all(
            url, token, message=message or f"tablewatch {version('tablewatch')}",
            settings=Settings(rounds_url=rounds_url),
        )  # fmt: skip
    except (GrafanaException, OSError) as exc:
        Console(stderr=True).print(f"tablewatch dashboards publish: {exc}", markup=False)
        sys.exit(EXIT_PROBLEM)
    for item in done:
        click.echo(f"{item.uid}: version {item.version} {item.url}")


def _time(text: str | None) -> int | None:
    if text is None:
        return None
    if text.isdigit():
        return int(text)
    stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return int(stamp.timestamp() * 1000)


@dashboards.command()
@dsn_option
@click.option(
    "--from",
    "from_text",
    default=None,
    help="Range start (ISO 8601 or epoch ms); default: each dashboard's own.",
)
@click.option(
    "--to", "to_text", default=None, help="Range end (ISO 8601 or epoch ms); default now."
)
@click.option(
    "--var",
    "variables",
    multiple=True,
    metavar="NAME=VALUE",
    help="A variable's value (repeat for several); unset: All.",
)
@click.option(
    "--dashboard", "uids", multiple=True, help="Only the dashboard of this uid (repeatable)."
)
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
def check(
    dsn: str,
    from_text: str | None,
    to_text: str | None,
    variables: tuple[str, ...],
    uids: tuple[str, ...],
    fmt: str,
) -> None:
    """Run every panel's SQL on the store, macros and variables expanded; columns, rows, time.

    Exit 1 when a panel's SQL fails or returns other columns than the panel reads.
    """
    from tablewatch.dashboards.catalog import DASHBOARDS
    from tablewatch.dashboards.check import check_dashboards
    from tablewatch.dashboards.macros import TimeRange
    from tablewatch.dashboards.variables import NAMES
    from tablewatch.store.read_only import open_reader

    err = Console(stderr=True, highlight=False)
    values: dict[str, list[str]] = {}
    for item in variables:
        name, sep, value = item.partition("=")
        if not sep or name not in NAMES:
            err.print(
                f"tablewatch dashboards check: --var {item!r}: "
                f"NAME=VALUE, NAME one of {sorted(NAMES)}",
                markup=False,
            )
            sys.exit(EXIT_BAD_INPUT)
        values.setdefault(name, []).append(value)
    specs = [d for d in DASHBOARDS if not uids or d.uid in uids]
    try:
        start, end = _time(from_text), _time(to_text)
    except ValueError as exc:
        err.print(f"tablewatch dashboards check: --from/--to: {exc}", markup=False)
        sys.exit(EXIT_BAD_INPUT)
    window = None
    if start is not None:
        window = TimeRange(
            start, end if end is not None else int(datetime.now().timestamp() * 1000)
        )
    reader = open_reader(dsn)
    try:

        def run(sql: str) -> tuple[list[str], list[list[object]]]:
            answer = reader.run(sql)
            return answer.columns, [list(r) for r in answer.rows]

        results = check_dashboards(specs, run, now_ms=end, time_range=window, values=values)
    finally:
        reader.close()
    if fmt == "json":
        click.echo(json.dumps([
            {"dashboard": r.dashboard, "panel": r.panel, "columns": list(r.columns),
             "rows": r.rows, "ms": round(r.seconds * 1000, 1), "problem": r.problem}
            for r in results
        ]))  # fmt: skip
    else:
        table = Table("dashboard", "panel", "rows", "ms", "columns / problem")
        for r in results:
            table.add_row(
                r.dashboard, r.panel, str(r.rows), f"{r.seconds * 1000:.1f}",
                ", ".join(r.columns) if r.ok else f"PROBLEM: {r.problem}",
            )  # fmt: skip
        Console(highlight=False, width=200).print(table)
    if any(not r.ok for r in results):
        sys.exit(EXIT_PROBLEM)
