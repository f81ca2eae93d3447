"""``tablewatch replay --source files PATH... | store | kafka``: judge recorded events again.

Exit 0: the replay's findings are the live ones of the same rounds; 1: they differ
(the diff is printed); 2: input it cannot use (options, configuration, store, topic)
or a run that failed; 130: interrupted (Ctrl-C, SIGTERM), recorded as such. See
``docs/replay.md``.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tablewatch.commands.options import dsn_option, kafka_access_options

if TYPE_CHECKING:
    from tablewatch.kafka_access import KafkaAccess
    from tablewatch.replay.run import Source

EXIT_DIFF = 1
EXIT_UNUSABLE = 2
EXIT_INTERRUPTED = 130
SOURCES = ("files", "store", "kafka")


class Unusable(Exception):
    """Input replay cannot use (exit 2)."""


def parse_time(option: str, text: str) -> int:
    """Epoch milliseconds of an ISO 8601 date or time (UTC unless it says otherwise)."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError:
        raise Unusable(
            f"{option} {text!r}: not an ISO 8601 date or time (e.g. 2026-12-01T09:30:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


@click.command()
@click.option(
    "--source",
    "source_name",
    required=True,
    metavar="files|store|kafka",
    help="files: the JSON Lines PATHS; store: the stored raw events (raw_events_v); "
    "kafka: the events topic.",
)
@click.argument("paths", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--since",
    default=None,
    metavar="TS",
    help="From this time (ISO 8601, UTC unless it says): the events' ts (files, store), the "
    "messages' times (kafka).",
)
@click.option("--until", default=None, metavar="TS", help="Up to this time, included.")
@click.option("--tables", default=None, help="Only these tables (comma-separated ids).")
@click.option(
    "--config",
    "config_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The table configuration to judge with (the casino's Rules Submission); needed.",
)
@dsn_option
@click.option(
    "--topic",
    default="table-events",
    show_default=True,
    help="With --source kafka: the events topic.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table: the run and one line per difference; json: one document.",
)
@click.option(
    "--limit",
    default=1000,
    show_default=True,
    type=click.IntRange(min=0),
    help="Differences printed at most (every one is counted).",
)
@click.option(
    "--patterns",
    is_flag=True,
    default=False,
    help="Compute the patterns across rounds too (advantage play, dealers, hold, meter), as "
    "the live companion does, and compare them; costly: each decision is valued.",
)
@kafka_access_options
def replay(
    source_name: str,
    paths: tuple[Path, ...],
    since: str | None,
    until: str | None,
    tables: str | None,
    config_path: Path | None,
    dsn: str,
    topic: str,
    fmt: str,
    limit: int,
    patterns: bool,
    kafka: KafkaAccess,
) -> None:
    """Judge recorded events again and diff the findings with the live ones of the same rounds.

    The run and its findings are recorded in the store (replay_runs, replay_findings,
    replay_rounds); the live findings are never touched. Exit 0: no difference; 1:
    differences (printed); 2: input it cannot use, or the run failed; 130: interrupted
    (recorded as interrupted). An embedded store is opened by one process at a time:
    stop the worker first, or use a ClickHouse server. With --patterns the run also
    computes the patterns across rounds; without, the diff leaves the pattern checks out.
    """
    try:
        code = _replay(
            source_name, paths, since, until, tables, config_path, dsn, topic, fmt, limit,
            patterns, kafka,
        )  # fmt: skip
    except Unusable as exc:
        click.echo(f"tablewatch replay: {exc}", err=True)
        sys.exit(EXIT_UNUSABLE)
    sys.exit(code)


def _replay(
    source_name: str,
    paths: tuple[Path, ...],
    since: str | None,
    until: str | None,
    tables: str | None,
    config_path: Path | None,
    dsn: str,
    topic: str,
    fmt: str,
    limit: int,
    patterns: bool,
    kafka: KafkaAccess,
) -> int:
    from tablewatch.config_file import load_config
    from tablewatch.ingest.files import check_events_file
    from tablewatch.rules.config import ConfigError

    if source_name not in SOURCES:
        raise Unusable(f"--source {source_name!r}: unknown source (one of {', '.join(SOURCES)})")
    if source_name == "files" and not paths:
        raise Unusable("--source files needs the PATHS of JSON Lines files")
    if source_name != "files" and paths:
        raise Unusable(f"--source {source_name} takes no PATHS (given: {paths[0]})")
    for path in paths:
        if not path.exists():
            raise Unusable(f"{path}: no such file")
        try:  # a device, a directory, a start that is not JSON Lines: before the store
            check_events_file(path)
        except OSError as exc:
            raise Unusable(f"{path}: {exc.strerror or exc}") from None
    since_ms = parse_time("--since", since) if since else None
    until_ms = parse_time("--until", until) if until else None
    if since_ms is not None and until_ms is not None and until_ms < since_ms:
        raise Unusable(f"--until {until} is before --since {since}")
    if config_path is None:
        raise Unusable("--config TABLES.yaml is needed: the configuration to judge with")
    try:
        configs = load_config(config_path)
    except ConfigError as exc:
        raise Unusable("; ".join(exc.problems)) from exc
    wanted = [t.strip() for t in tables.split(",") if t.strip()] if tables is not None else None
    if wanted is not None:
        if not wanted:
            raise Unusable("--tables: no table id given")
        unknown = [t for t in wanted if t not in configs]
        if unknown:
            raise Unusable(
                f"--tables: unknown table {', '.join(unknown)}: not in the configuration "
                f"{config_path} (it has {', '.join(sorted(configs)) or 'none'})"
            )
    with _store(dsn) as client:
        source, where = _source(
            source_name, paths, since_ms, until_ms, wanted, client, dsn, topic, kafka
        )
        try:
            return _run(
                source, where, source_name, configs, config_path, wanted, client, dsn, fmt,
                limit, patterns,
            )  # fmt: skip
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()


@contextmanager
def _store(dsn: str) -> Iterator[Any]:
    from tablewatch.store.client import StoreBusy, StoreError, connect
    from tablewatch.store.dsn import DsnError
    from tablewatch.store.migrate import migrate

    try:
        client = connect(dsn)
    except StoreBusy as exc:
        raise Unusable(
            f"the store is in use by another process, and replay writes its run there: "
            f"stop the worker (or whichever process holds it) and run the replay again, or "
            f"run the worker and the replay on a ClickHouse server (--dsn http://...). {exc}"
        ) from exc
    except (StoreError, DsnError) as exc:
        raise Unusable(str(exc)) from exc
    try:
        migrate(client)
        yield client
    finally:
        client.close()


def _source(
    name: str,
    paths: tuple[Path, ...],
    since_ms: int | None,
    until_ms: int | None,
    tables: list[str] | None,
    client: Any,
    dsn: str,
    topic: str,
    kafka: KafkaAccess,
) -> tuple[Source, str]:
    bounds = []
    if since_ms is not None:
        bounds.append(f"since {_iso(since_ms)}")
    if until_ms is not None:
        bounds.append(f"until {_iso(until_ms)}")
    if name == "files":
        from tablewatch.replay.files import FileSource

        source: Source = FileSource(paths, tables=tables, since_ms=since_ms, until_ms=until_ms)
        return source, " ".join([*map(str, paths), *bounds])
    if name == "store":
        from tablewatch.replay.store_source import StoreSource
        from tablewatch.store.client import connect

        source = StoreSource(
            client, tables=tables, since_ms=since_ms, until_ms=until_ms,
            connect=lambda: connect(dsn),
        )  # fmt: skip
        return source, " ".join(["raw_events_v", *bounds])
    from tablewatch.replay.kafka_source import KafkaSource, KafkaUnusable

    kafka_source = KafkaSource(kafka, topic, since_ms=since_ms, until_ms=until_ms, tables=tables)
    try:
        described = kafka_source.describe()
    except KafkaUnusable as exc:
        kafka_source.close()
        raise Unusable(str(exc)) from exc
    return kafka_source, " ".join([described, *bounds])


def _iso(ms: int) -> str:
    from tablewatch.rules.events import ms_to_ts

    return ms_to_ts(ms)


def _run(
    source: Source,
    where: str,
    source_name: str,
    configs: Any,
    config_path: Path,
    tables: list[str] | None,
    client: Any,
    dsn: str,
    fmt: str,
    limit: int,
    patterns: bool,
) -> int:
    from tablewatch.replay.kafka_source import KafkaUnusable
    from tablewatch.replay.progress import progress_bar
    from tablewatch.replay.row_writer import RowsBehind
    from tablewatch.replay.run import (
        Recorder,
        RunRecord,
        new_run_id,
        record_end,
        replay,
    )
    from tablewatch.replay.version import config_sha256, rules_version
    from tablewatch.store.client import connect

    record = RunRecord(
        run_id=new_run_id(),
        source=source_name,
        range=where,
        tables=tuple(tables or ()),
        rules_version=rules_version(),
        config_sha256=config_sha256(config_path),
        started_ms=int(time.time() * 1000),
        patterns=patterns,
    )
    recorder = Recorder(client, record, rows=RowsBehind(lambda: connect(dsn)))
    recorder.write_run()
    err = click.get_text_stream("stderr")
    rejected_shown = 0

    def rejected(item: object) -> None:
        nonlocal rejected_shown
        if rejected_shown < 20:
            err.write(f"rejected: {item}\n")
        rejected_shown += 1

    try:
        with _stop_on_sigterm(), progress_bar(source.total, f"replay ({source_name})") as tick:
            replay(source, configs, recorder, progress=tick, rejected=rejected)
    except KeyboardInterrupt:
        with _signals_held():
            record_end(recorder, "interrupted", "stopped by a signal (Ctrl-C or SIGTERM)")
        err.write(
            f"tablewatch replay: interrupted after {record.events:,} events; run "
            f"{record.run_id} recorded as interrupted\n"
        )
        return EXIT_INTERRUPTED
    except (KafkaUnusable, OSError) as exc:
        with _signals_held():
            record_end(recorder, "failed", str(exc))
        raise Unusable(f"run {record.run_id} failed: {exc}") from exc
    except BaseException as exc:
        with _signals_held():
            record_end(recorder, "failed", f"{type(exc).__name__}: {exc}")
        raise
    if record.events == 0 and record.rejected > 0:  # nothing judged: not a complete run
        detail = f"no event accepted: each of the {record.rejected:,} events read was rejected"
        with _signals_held():
            record_end(recorder, "failed", detail)
        raise Unusable(f"run {record.run_id} failed: {detail}")
    with _signals_held():
        record_end(recorder, "complete")
    return _report(dsn, record.run_id, fmt, limit)


def _report(dsn: str, run_id: str, fmt: str, limit: int) -> int:
    import msgspec

    from tablewatch.replay.diff import replay_diff
    from tablewatch.replay.report import as_json, diff_lines, run_line
    from tablewatch.replay.runs import replay_run
    from tablewatch.store.query_limits import QueryLimits
    from tablewatch.store.read_only import open_reader
    from tablewatch.terminal_text import printable

    reader = open_reader(dsn, QueryLimits(seconds=600, rows=max(limit, 10) + 10))
    try:
        run = replay_run(reader, run_id)
        diff = replay_diff(reader, run_id, limit=limit)
    finally:
        reader.close()
    if fmt == "json":
        sys.stdout.buffer.write(msgspec.json.encode(as_json(run, diff)) + b"\n")
    else:
        # the store's text (ids, messages): its control characters shown as escapes
        sys.stdout.write(printable(run_line(run)) + "\n")
        sys.stdout.write("\n".join(printable(line) for line in diff_lines(diff)) + "\n")
    sys.stdout.flush()
    return 0 if diff.empty else EXIT_DIFF


@contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """SIGTERM stops the run as Ctrl-C does (KeyboardInterrupt), so that it is recorded."""

    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _signals_held() -> Iterator[None]:
    """No signal stops the writing of the run's last row."""
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
