"""``tablewatch cases list|show|claim|release|note|bookmark|link|close|reopen``: the casework of
serve-api's ``/api/v1/cases`` (docs/casework.md), over HTTP.

Who acts is the bearer token's holder (``TABLEWATCH_TOKEN``, or ``--token-file``): the
server records it, never a name given here. Everything the server sends back (ids, names,
notes) is printed with its control characters escaped (:mod:`tablewatch.terminal_text`)
and never read as markup. Exit 0 done, 1 refused or failed (the server's reason on
standard error), 2 a usage mistake.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import quote

import click

from tablewatch.terminal_text import json_printable, printable

API_ENV = "TABLEWATCH_API"
TOKEN_ENV = "TABLEWATCH_TOKEN"
DEFAULT_API = "http://127.0.0.1:8090"
EXIT_REFUSED = 1
EXIT_USAGE = 2
MAX_TOKEN_FILE = 8192
DOLLARS = re.compile(r"^\$?(?P<whole>[0-9]{1,11})(?:\.(?P<cents>[0-9]{1,2}))?$")
STATES = ("open", "in_review", "closed")
SEVERITIES = ("critical", "high", "medium", "low")


def _stop(message: str, code: int) -> NoReturn:
    name = click.get_current_context().command.name
    click.echo(f"tablewatch cases {name}: {message}", err=True)
    sys.exit(code)


def cents_of(text: str) -> int:
    """Dollars and cents as typed (``12``, ``12.5``, ``12.50``, ``$12.50``) in integer
    cents; ValueError saying the form otherwise."""
    match = DOLLARS.match(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not an amount in dollars and cents, like 12.50")
    cents = (match["cents"] or "0").ljust(2, "0")
    return int(match["whole"]) * 100 + int(cents)


class Api:
    """serve-api's case routes, as the token's holder."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def call(
        self, method: str, path: str, body: Mapping[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
    ) -> Any:  # fmt: skip
        """The JSON answer; a refusal or a failure stops the command (exit 1)."""
        import httpx

        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        try:
            response = httpx.request(
                method, f"{self.base}{path}", json=body, params=params, headers=headers,
                timeout=30,
            )  # fmt: skip
        except httpx.HTTPError as exc:
            _stop(
                f"serve-api at {printable(self.base)} cannot be reached: {printable(str(exc))}",
                EXIT_REFUSED,
            )
        if response.status_code >= 400:
            _stop(f"HTTP {response.status_code}: {printable(_reason(response))}", EXIT_REFUSED)
        try:
            return response.json()
        except ValueError:
            _stop(f"HTTP {response.status_code}: the answer is not JSON", EXIT_REFUSED)


def _reason(response: Any) -> str:
    try:
        answer = response.json()
    except ValueError:
        return str(response.text)[:500]
    detail = answer.get("detail", answer) if isinstance(answer, dict) else answer
    if isinstance(detail, list):  # validation errors: where and why
        return "; ".join(
            f"{'.'.join(str(p) for p in d.get('loc', []))}: {d.get('msg', '')}"
            if isinstance(d, dict) else str(d)
            for d in detail
        )  # fmt: skip
    return str(detail)


def _token(token: str | None, token_file: Path | None) -> str:
    if token_file is not None:
        try:
            with token_file.open("rb") as handle:
                raw = handle.read(MAX_TOKEN_FILE + 1)
        except OSError as exc:
            _stop(f"--token-file {printable(str(token_file))}: {exc.strerror}", EXIT_USAGE)
        if len(raw) > MAX_TOKEN_FILE:
            _stop(f"--token-file {printable(str(token_file))}: over {MAX_TOKEN_FILE} bytes",
                  EXIT_USAGE)  # fmt: skip
        try:
            token = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            _stop(f"--token-file {printable(str(token_file))}: not UTF-8 text", EXIT_USAGE)
        if not token:
            _stop(f"--token-file {printable(str(token_file))}: the file is empty", EXIT_USAGE)
        return token
    if not token or not token.strip():
        _stop(f"no token: set {TOKEN_ENV} to your access file token, or give --token-file",
              EXIT_USAGE)  # fmt: skip
    return token.strip()


def _api_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--api``, ``--token`` (``TABLEWATCH_TOKEN``) and ``--token-file``, handed to the
    command as one ``client``: an :class:`Api` as the token's holder."""

    @functools.wraps(command)
    def with_client(
        *args: Any, api: str, token: str | None, token_file: Path | None, **kwargs: Any
    ) -> Any:
        return command(*args, client=Api(api, _token(token, token_file)), **kwargs)

    options = (
        click.option(
            "--api", envvar=API_ENV, show_envvar=True, default=DEFAULT_API, show_default=True,
            help="serve-api's address.",
        ),
        click.option(
            "--token", envvar=TOKEN_ENV, show_envvar=True,
            help=f"Your bearer token (the access file's): set {TOKEN_ENV} rather than this "
            "option, a command line can be read by other users. Never printed.",
        ),
        click.option(
            "--token-file", type=click.Path(dir_okay=False, path_type=Path),
            help="A file holding your bearer token alone (in place of --token). Never printed.",
        ),
    )  # fmt: skip
    wrapped: Callable[..., Any] = with_client
    for option in reversed(options):
        wrapped = option(wrapped)
    return wrapped


def _case_path(finding_id: str, action: str = "") -> str:
    path = f"/api/v1/cases/{quote(finding_id, safe='')}"
    return f"{path}/{action}" if action else path


def _text(value: Any) -> str:
    return "" if value is None else printable(str(value))


def _money(cents: Any) -> str:
    from tablewatch.report import money

    return money(int(cents)) if isinstance(cents, int) else ""


def _echo_case(case: Mapping[str, Any]) -> None:
    """One line: the finding, its state, who has it or how it was closed."""
    state = str(case.get("state", ""))
    line = f"{_text(case.get('finding_id'))}: {_text(state)}"
    if state == "in_review":
        line += f" by {_text(case.get('assignee'))}"
    elif state == "closed":
        line += f" ({_text(case.get('disposition'))})"
        if case.get("recovered_cents"):
            line += f", recovered {_money(case.get('recovered_cents'))}"
    if case.get("updated_by"):
        line += f"; last step by {_text(case.get('updated_by'))} at {_text(case.get('updated_at'))}"
    click.echo(line)


def _json(value: Any) -> None:
    sys.stdout.write(json_printable(json.dumps(value, indent=2, ensure_ascii=False)) + "\n")


@click.group()
def cases() -> None:
    """Casework: the queue of findings' cases; claim, note, close, reopen (serve-api)."""


@cases.command("list")
@click.option("--state", type=click.Choice(STATES), help="Only cases in this state.")
@click.option("--table", help="Only this table_id.")
@click.option("--pit", help="Only this pit.")
@click.option("--check", help="Only this check code.")
@click.option("--severity", type=click.Choice(SEVERITIES), help="Only this severity.")
@click.option("--assignee", help="Only the cases this person has (in review).")
@click.option("--since", help="Findings at or after this time (2026-11-29T18:00:00Z).")
@click.option("--until", help="Findings before this time.")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--cursor", help="The next page: the cursor the page before printed.")
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@_api_options
def list_cases(
    state: str | None, table: str | None, pit: str | None, check: str | None,
    severity: str | None, assignee: str | None, since: str | None, until: str | None,
    limit: int, cursor: str | None, fmt: str, client: Api,
) -> None:  # fmt: skip
    """The queue: unclaimed first, then in review (then closed), by severity then age."""
    params = {
        k: v
        for k, v in {
            "state": state, "table": table, "pit": pit, "check": check, "severity": severity,
            "assignee": assignee, "since": since, "until": until, "limit": str(limit),
            "cursor": cursor,
        }.items()
        if v is not None
    }  # fmt: skip
    page = client.call("GET", "/api/v1/cases", params=params)
    if fmt == "json":
        _json(page)
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    grid = Table()
    columns = ("finding", "state", "assignee", "severity", "check", "table", "round", "pit",
               "found", "disposition")  # fmt: skip
    for column in columns:
        grid.add_column(column)
    for c in page.get("cases", []):
        cells = (c.get("finding_id"), c.get("state"), c.get("assignee"), c.get("severity"),
                 c.get("check"), c.get("table_id"), c.get("round_id"), c.get("pit"),
                 c.get("finding_ts"), c.get("disposition"))  # fmt: skip
        grid.add_row(*(Text(_text(cell)) for cell in cells))  # never rich markup
    Console(highlight=False, width=220).print(grid)
    shown = len(page.get("cases", []))
    more = page.get("next_cursor")
    click.echo(f"{shown} case{'' if shown == 1 else 's'}" + (
        f"; the next page: --cursor {_text(more)}" if more else ""))  # fmt: skip


@cases.command("show")
@click.argument("finding_id")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@_api_options
def show(finding_id: str, fmt: str, client: Api) -> None:
    """FINDING_ID's case: its state, the finding, every step (who, when, note), the alert
    acknowledgements."""
    case = client.call("GET", _case_path(finding_id))
    if fmt == "json":
        _json(case)
        return
    _echo_case(case)
    finding = case.get("finding") or {}
    click.echo(
        f"  finding: {_text(case.get('severity'))} {_text(case.get('check'))} at table "
        f"{_text(case.get('table_id'))} round {_text(case.get('round_id'))} (pit "
        f"{_text(case.get('pit')) or '-'}) {_text(case.get('finding_ts'))}"
    )
    if finding.get("message"):
        click.echo(f"  what happened: {_text(finding.get('message'))}")
    if case.get("camera") or case.get("window_start"):
        click.echo(
            f"  video: {_text(case.get('camera')) or '-'} {_text(case.get('window_start'))}"
            f" to {_text(case.get('window_end'))}"
        )
    if case.get("links"):
        click.echo(f"  linked: {', '.join(_text(x) for x in case['links'])}")
    steps = case.get("steps") or []
    click.echo(f"  steps ({len(steps)}):" if steps else "  no step yet: open, unclaimed")
    for s in steps:
        line = (
            f"    {_text(s.get('step'))}. {_text(s.get('at'))} {_text(s.get('kind'))} by "
            f"{_text(s.get('by'))} ({_text(s.get('role'))})"
        )
        if s.get("kind") == "closed":
            line += f": {_text(s.get('disposition'))}"
            if s.get("recovered_cents"):
                line += f", recovered {_money(s.get('recovered_cents'))}"
        if s.get("reason"):
            line += f"; reason: {_text(s.get('reason'))}"
        if s.get("note"):
            line += f"; note: {_text(s.get('note'))}"
        click.echo(line)
    for ack in case.get("acks") or []:
        click.echo(
            f"  alert acknowledged by {_text(ack.get('by') or ack.get('acknowledged_by'))} "
            f"at {_text(ack.get('at') or ack.get('acknowledged_at'))}"
            + (f": {_text(ack.get('note'))}" if ack.get("note") else "")
        )


def _act(client: Api, finding_id: str, action: str,
         body: Mapping[str, Any]) -> None:  # fmt: skip
    _echo_case(client.call("POST", _case_path(finding_id, action), body))


@cases.command("claim")
@click.argument("finding_id")
@_api_options
def claim(finding_id: str, client: Api) -> None:
    """Take FINDING_ID's case into review (refused if someone else has it)."""
    _act(client, finding_id, "claim", {})


@cases.command("release")
@click.argument("finding_id")
@click.option("--reason", help="Why it is handed back.")
@_api_options
def release(finding_id: str, reason: str | None, client: Api) -> None:
    """Hand FINDING_ID's case back to the queue (its assignee, or an admin)."""
    _act(client, finding_id, "release", {} if reason is None else {"reason": reason})


@cases.command("note")
@click.argument("finding_id")
@click.argument("note")
@_api_options
def note(finding_id: str, note: str, client: Api) -> None:
    """Add NOTE to FINDING_ID's case (not once it is closed)."""
    _act(client, finding_id, "note", {"note": note})


@cases.command("bookmark")
@click.argument("finding_id")
@click.option("--camera", help="The camera (default: the table's first).")
@click.option("--window-start", help="The video's start (default: the round's start - 30 s).")
@click.option("--window-end", help="The video's end (default: the round's end + 30 s).")
@_api_options
def bookmark(
    finding_id: str, camera: str | None, window_start: str | None, window_end: str | None,
    client: Api,
) -> None:  # fmt: skip
    """Bookmark the video of FINDING_ID's case: a camera and a time window (UTC)."""
    _act(client, finding_id, "bookmark", _video(camera, window_start, window_end))


@cases.command("link")
@click.argument("finding_id")
@click.argument("related", nargs=-1, required=True)
@_api_options
def link(finding_id: str, related: tuple[str, ...], client: Api) -> None:
    """Link FINDING_ID's case to the findings RELATED (their ids)."""
    _act(client, finding_id, "link", {"finding_ids": list(related)})


def _video(camera: str | None, window_start: str | None, window_end: str | None) -> dict[str, str]:
    """The bookmark's fields given (the server fills the others from the round)."""
    given = (("camera", camera), ("window_start", window_start), ("window_end", window_end))
    return {key: value for key, value in given if value is not None}


@cases.command("close")
@click.argument("finding_id")
@click.option("--disposition", required=True, help="One of the configured dispositions.")
@click.option("--note", default="", help="What was found.")
@click.option("--recovered", default="0", show_default=True,
              help="Money recovered, in dollars and cents (12.50).")  # fmt: skip
@click.option("--camera", help="The video bookmark's camera (default: the round's).")
@click.option("--window-start", help="The bookmark's start (2026-11-29T18:00:00.000Z).")
@click.option("--window-end", help="The bookmark's end.")
@_api_options
def close(
    finding_id: str, disposition: str, note: str, recovered: str, camera: str | None,
    window_start: str | None, window_end: str | None, client: Api,
) -> None:  # fmt: skip
    """Close FINDING_ID's case, which you have in review, with a disposition."""
    try:
        cents = cents_of(recovered)
    except ValueError as exc:
        _stop(f"--recovered: {printable(str(exc))}", EXIT_USAGE)
    body: dict[str, Any] = {"disposition": disposition, "note": note, "recovered_cents": cents}
    _act(client, finding_id, "close", body | _video(camera, window_start, window_end))


@cases.command("reopen")
@click.argument("finding_id")
@click.option("--reason", required=True, help="Why the closed case is reopened.")
@_api_options
def reopen(finding_id: str, reason: str, client: Api) -> None:
    """Reopen FINDING_ID's closed case, saying why."""
    _act(client, finding_id, "reopen", {"reason": reason})
