"""``tablewatch serve-api``: the auditor API and pages (tablewatch/api/), read-only."""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tablewatch.commands.options import dsn_option, rules_or_exit

if TYPE_CHECKING:
    from tablewatch.access.gate import Gate
    from tablewatch.alerts.rules_file import AlertRules
    from tablewatch.api.case_actions import CaseActions

EXIT_ERROR = 2
TOKEN_ENV = "TABLEWATCH_API_TOKEN"
ACCESS_ENV = "TABLEWATCH_ACCESS_FILE"
WORKER_ENV = "TABLEWATCH_API_WORKER"


@click.command("serve-api")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on.")
@click.option("--port", default=8090, show_default=True, type=click.IntRange(0, 65535))
@dsn_option
@click.option(
    "--worker",
    "worker_url",
    envvar=WORKER_ENV,
    show_envvar=True,
    help="Read through this worker's /query (http://127.0.0.1:6066) instead of opening the "
    "store: the way to read an embedded store while the worker runs.",
)
@click.option(
    "--token",
    envvar=TOKEN_ENV,
    show_envvar=True,
    help=f"The worker's bearer token (role auditor or admin) for --worker. Set {TOKEN_ENV} "
    "rather than this option: a command line can be read by other users. Never printed.",
)
@click.option(
    "--readers", default=4, show_default=True, type=click.IntRange(1, 64),
    help="Readers of the store opened with --dsn (statements at the same time).",
)  # fmt: skip
@click.option(
    "--max-round-events", default=10_000, show_default=True, type=click.IntRange(1, 1_000_000),
    help="Events a reconstruction reads at most (the round's and the table's around it): a "
    "round with more is answered 413, naming the count.",
)  # fmt: skip
@click.option(
    "--public",
    is_flag=True,
    help="Allow an address other than loopback: the API has no login of its own, so put it "
    "behind a proxy that authenticates (docs/api.md).",
)
@click.option(
    "--alerter",
    "alerter_url",
    envvar="TABLEWATCH_ALERTER",
    show_envvar=True,
    help="The alerter's URL (http://127.0.0.1:8095): serve POST /api/v1/alerts/{id}/ack, "
    "forwarded to it.",
)
@click.option(
    "--access-file",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar=ACCESS_ENV,
    show_envvar=True,
    help="The access file (tablewatch access add): who may read and work cases "
    "(/api/v1/cases..., /login). Without one the case routes answer 503.",
)
@click.option(
    "--rules",
    "rules_path",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="TABLEWATCH_ALERT_RULES",
    show_envvar=True,
    help="The alert rules YAML: its casework.dispositions is the list a case is closed "
    "with (with --dsn; with --worker the worker's desk decides); its shifts, time zone and "
    "pits make the shift report's windows (/reports). Without it /reports answers 503.",
)
@click.option(
    "--cases-dsn",
    envvar="TABLEWATCH_CASES_DSN",
    show_envvar=True,
    help="The store the casework desk writes with (a user granted INSERT on case_events); "
    "default: --dsn. Never printed.",
)
@click.option(
    "--cases",
    "cases_url",
    envvar="TABLEWATCH_CASES",
    show_envvar=True,
    help="Forward case commands, with the caller's own token, to the serve-api at this URL "
    "that runs the casework desk (one per store): its POST /api/v1/cases/{id}/{action}.",
)
@click.option(
    "--casino",
    envvar="TABLEWATCH_CASINO",
    show_envvar=True,
    default="",
    help="The casino's name, at the head of the shift report.",
)
@click.option("--log-level", default="warning", show_default=True)
def serve_api(
    host: str,
    port: int,
    dsn: str,
    worker_url: str | None,
    token: str | None,
    readers: int,
    max_round_events: int,
    public: bool,
    alerter_url: str | None,
    access_file: Path | None,
    rules_path: Path | None,
    cases_dsn: str | None,
    cases_url: str | None,
    casino: str,
    log_level: str,
) -> None:
    """Serve the auditor API (/api/v1/...) and pages (/, /findings ...): read-only but for
    casework (/api/v1/cases..., with --access-file), whose steps the desk writes."""
    import uvicorn

    from tablewatch.api.app import create_app
    from tablewatch.api.sources import RowSource, SourceError

    ctx = click.get_current_context()
    err = click.echo
    if not public and not _loopback(host):
        err(
            f"tablewatch serve-api: refusing to serve on {host}: the API has no login of its "
            "own; serve on 127.0.0.1 behind an authenticating proxy, or give --public",
            err=True,
        )
        sys.exit(EXIT_ERROR)
    dsn_given = ctx.get_parameter_source("dsn") not in (
        click.core.ParameterSource.DEFAULT,
        None,
    )
    if worker_url and dsn_given:
        err("tablewatch serve-api: give --worker or --dsn, not both", err=True)
        sys.exit(EXIT_ERROR)
    if cases_url and cases_dsn:
        err("tablewatch serve-api: give --cases or --cases-dsn, not both", err=True)
        sys.exit(EXIT_ERROR)
    if worker_url and (cases_url or cases_dsn):
        err(
            "tablewatch serve-api: --cases and --cases-dsn do not apply with --worker "
            "(the worker's desk decides)",
            err=True,
        )
        sys.exit(EXIT_ERROR)
    source: RowSource
    if worker_url:
        from tablewatch.api.sources import WorkerSource

        source = WorkerSource(worker_url, token)
        where = f"the worker's /query at {worker_url}"
    else:
        from tablewatch.api.sources import ReaderPool, open_product_reader
        from tablewatch.store.dsn import DsnError, redact

        try:
            from tablewatch.store.dsn import parse_dsn

            parse_dsn(dsn)
        except DsnError as exc:
            err(f"tablewatch serve-api: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        source = ReaderPool(lambda: open_product_reader(dsn), size=readers)
        where = redact(dsn)
    if cases_dsn:
        from tablewatch.store.dsn import DsnError, parse_dsn

        try:
            parse_dsn(cases_dsn)
        except DsnError:  # its message quotes the DSN, password and all: not printed
            err(
                "tablewatch serve-api: --cases-dsn: not a DSN: expected chdb:///<directory> "
                "or http(s)://user:password@host:8123/database",
                err=True,
            )
            sys.exit(EXIT_ERROR)
    rules = rules_or_exit("serve-api", rules_path)  # the dispositions; the report's shifts
    gate, case_actions = _casework(access_file, rules, worker_url, cases_url, cases_dsn or dsn)
    try:
        source.run("SELECT count() FROM rounds_v WHERE 0")
        source.run("SELECT count() FROM tables_v WHERE 0")
    except SourceError as exc:
        hint = ""
        if "tables_v" in exc.reason or "rounds_v" in exc.reason:
            hint = " (a store not migrated: `tablewatch db migrate`, or start the worker once)"
        err(f"tablewatch serve-api: cannot read {where}: {exc.reason}{hint}", err=True)
        sys.exit(EXIT_ERROR)
    app = create_app(
        source, described_as=where, alerter_url=alerter_url, gate=gate, case_actions=case_actions
    )
    app.state.max_round_events = max_round_events
    app.state.casino = casino
    if rules is not None:  # the shift report's shifts and pits
        app.state.alert_rules = rules
    err(f"tablewatch serve-api: http://{host}:{port}/ reading {where}", err=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False)


def _casework(
    access_file: Path | None,
    rules: AlertRules | None,
    worker_url: str | None,
    cases_url: str | None,
    dsn: str,
) -> tuple[Gate | None, CaseActions | None]:
    """Who calls the case routes, and where their commands are decided: the worker's desk
    (--worker), the desk's serve-api (--cases), or a desk of this process writing the store
    (--cases-dsn, else --dsn)."""
    from tablewatch.access.access_file import AccessFileError
    from tablewatch.access.authenticate import FileTokenAuthenticator
    from tablewatch.access.gate import Gate
    from tablewatch.api.case_actions import DeskActions, DeskForwardActions, WorkerActions
    from tablewatch.casework.desk import CaseDesk
    from tablewatch.casework.dispositions import DEFAULT_DISPOSITIONS
    from tablewatch.store.client import StoreError, connect

    gate = None
    if access_file is not None:
        try:
            gate = Gate(FileTokenAuthenticator(access_file))
        except AccessFileError as exc:
            click.echo(f"tablewatch serve-api: --access-file: {exc}", err=True)
            sys.exit(EXIT_ERROR)
    dispositions = DEFAULT_DISPOSITIONS if rules is None else rules.dispositions
    if worker_url:
        return gate, WorkerActions(worker_url)
    if cases_url:
        return gate, DeskForwardActions(cases_url)
    try:
        desk = CaseDesk(connect(dsn), dispositions)
    except StoreError as exc:
        click.echo(
            f"tablewatch serve-api: the casework desk (--cases-dsn, else --dsn): {exc}", err=True
        )
        sys.exit(EXIT_ERROR)
    return gate, DeskActions(desk)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
