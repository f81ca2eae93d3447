"""``tablewatch alerts config|ack|list``: Alertmanager's configuration from the rules
file, and the alerter's HTTP API for acknowledging and listing alerts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from tablewatch.commands.options import fail
from tablewatch.terminal_text import printable

ALERTER_ENV = "TABLEWATCH_ALERTER"
DEFAULT_ALERTER = "http://127.0.0.1:8095"
TOKEN_ENV = "TABLEWATCH_ALERTS_TOKEN"


def _alerter_option(command: Any) -> Any:
    return click.option(
        "--alerter",
        envvar=ALERTER_ENV,
        show_envvar=True,
        default=DEFAULT_ALERTER,
        show_default=True,
        help="The alerter's HTTP API.",
    )(command)


@click.group()
def alerts() -> None:
    """Alertmanager's configuration, acknowledgements and the list of alerts."""


@alerts.command("config")
@click.option(
    "--rules",
    "rules_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The alert rules YAML.",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write alertmanager.yml.",
)
@_alerter_option
@click.option(
    "--alerter-token-file",
    "token_file",
    help="Where Alertmanager reads the token it sends to the alerter's webhook (a holder "
    "of the role alertmanager in the alerter's access file): a path as Alertmanager sees "
    "it, the file holding the token alone. Without it the alerter refuses the "
    "notifications (401).",
)
def config(rules_path: Path, out: Path, alerter: str, token_file: str | None) -> None:
    """Write Alertmanager's configuration (receivers, routes, grouping, inhibition)."""
    from tablewatch.alerts.am_config import render
    from tablewatch.alerts.rules_file import RulesError, load_rules

    try:
        rules = load_rules(rules_path)
    except RulesError as exc:
        fail(f"{rules_path} refused:\n{exc}")
    out.write_text(render(rules, alerter, token_file), encoding="utf-8")
    click.echo(
        f"wrote {out}: {2 * len(rules.contacts)} receivers ({len(rules.contacts)} contacts "
        f"and their trail receivers), {len(rules.pits)} pits, "
        f"{len(rules.shifts)} shifts, {len(rules.escalation_s)} escalation steps"
    )
    if token_file is None:
        click.echo(
            "warning: no --alerter-token-file: the alerter will refuse Alertmanager's "
            "notifications (nothing recorded as notified)",
            err=True,
        )


def _request(method: str, url: str, body: Any = None, token: str | None = None) -> Any:
    import httpx

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx.request(method, url, json=body, headers=headers, timeout=10)
    except httpx.HTTPError as exc:
        fail(f"the alerter at {printable(url)} cannot be reached: {printable(str(exc))}", 1)
    if response.status_code >= 400:
        try:
            answer = response.json()
            reason = answer.get("error", response.text) if isinstance(answer, dict) else answer
        except ValueError:
            reason = response.text
        fail(f"HTTP {response.status_code}: {printable(str(reason))}", 1)
    return response.json()


@alerts.command("ack")
@click.argument("alert_id")
@click.option("--note", default="", help="What was done.")
@click.option(
    "--token",
    envvar=TOKEN_ENV,
    show_envvar=True,
    help=f"Your bearer token (role floor_manager or admin in the alerter's access file): the "
    f"acknowledgement is recorded under its holder's name. Set {TOKEN_ENV} rather than this "
    "option: a command line can be read by other users. Never printed.",
)
@click.option(
    "--by",
    help="Optional: your name as the access file has it (refused if it is not the token's holder).",
)
@_alerter_option
def ack(alert_id: str, note: str, token: str | None, by: str | None, alerter: str) -> None:
    """Acknowledge ALERT_ID: escalation stops, Alertmanager silences and resolves it."""
    from urllib.parse import quote

    if not token:
        fail(f"no token: set {TOKEN_ENV} (or --token) to your access file token")
    body: dict[str, str] = {"note": note}
    if by is not None:
        body["by"] = by
    url = f"{alerter.rstrip('/')}/api/v1/alerts/{quote(alert_id, safe='')}/ack"
    answer = _request("POST", url, body, token)
    click.echo(
        f"{printable(answer['alert_id'])} acknowledged by {printable(answer['acknowledged_by'])}"
        f" at {answer['acknowledged_at']}: {printable(answer['summary'])}"
    )


@alerts.command("list")
@click.option("--open", "open_only", is_flag=True, help="Only the alerts not resolved.")
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@_alerter_option
def list_alerts(open_only: bool, fmt: str, alerter: str) -> None:
    """The alerts the alerter knows (raised within its expiry)."""
    query = "?open=true" if open_only else ""
    rows = _request("GET", f"{alerter.rstrip('/')}/api/v1/alerts{query}")
    if fmt == "json":
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table()
    for column in ("alert", "raised", "severity", "check", "table", "pit", "level", "state"):
        table.add_column(column)
    for r in rows:
        state = "open" if r["open"] else "resolved"
        if r["acknowledged_by"]:
            state += f", ack {r['acknowledged_by']}"
        cells = (r["alert_id"], r["raised_at"], r["severity"], r["check"], r["table_id"],
                 r["pit"], r["escalation"], state)  # fmt: skip
        # stored text, written by callers: every control character shown as its escape,
        # and never read as rich markup
        table.add_row(*(Text(printable(str(cell))) for cell in cells))
    Console(highlight=False, width=200).print(table)
