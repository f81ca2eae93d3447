"""``tablewatch alerts config|ack|list``: Alertmanager's configuration from the rules
file, and the alerter's HTTP API for acknowledging and listing alerts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from tablewatch.commands.options import fail

ALERTER_ENV = "TABLEWATCH_ALERTER"
DEFAULT_ALERTER = "http://127.0.0.1:8095"


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
def config(rules_path: Path, out: Path, alerter: str) -> None:
    """Write Alertmanager's configuration (receivers, routes, grouping, inhibition)."""
    from tablewatch.alerts.am_config import render
    from tablewatch.alerts.rules_file import RulesError, load_rules

    try:
        rules = load_rules(rules_path)
    except RulesError as exc:
        fail(f"{rules_path} refused:\n{exc}")
    out.write_text(render(rules, alerter), encoding="utf-8")
    click.echo(
        f"wrote {out}: {len(rules.contacts)} receivers, {len(rules.pits)} pits, "
        f"{len(rules.shifts)} shifts, {len(rules.escalation_s)} escalation steps"
    )


def _request(method: str, url: str, body: Any = None) -> Any:
    import httpx

    try:
        response = httpx.request(method, url, json=body, timeout=10)
    except httpx.HTTPError as exc:
        fail(f"the alerter at {url} cannot be reached: {exc}", 1)
    if response.status_code >= 400:
        try:
            reason = response.json().get("error", response.text)
        except ValueError:
            reason = response.text
        fail(f"HTTP {response.status_code}: {reason}", 1)
    return response.json()


@alerts.command("ack")
@click.argument("alert_id")
@click.option("--by", required=True, help="Who acknowledges.")
@click.option("--note", default="", help="What was done.")
@_alerter_option
def ack(alert_id: str, by: str, note: str, alerter: str) -> None:
    """Acknowledge ALERT_ID: escalation stops, Alertmanager silences and resolves it."""
    answer = _request(
        "POST", f"{alerter.rstrip('/')}/api/v1/alerts/{alert_id}/ack", {"by": by, "note": note}
    )
    click.echo(
        f"{answer['alert_id']} acknowledged by {answer['acknowledged_by']} at "
        f"{answer['acknowledged_at']}: {answer['summary']}"
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

    table = Table()
    for column in ("alert", "raised", "severity", "check", "table", "pit", "level", "state"):
        table.add_column(column)
    for r in rows:
        state = "open" if r["open"] else "resolved"
        if r["acknowledged_by"]:
            state += f", ack {r['acknowledged_by']}"
        table.add_row(
            r["alert_id"],
            r["raised_at"],
            r["severity"],
            r["check"],
            r["table_id"],
            r["pit"],
            str(r["escalation"]),
            state,
        )
    Console(highlight=False, width=200).print(table)
