"""``tablewatch audit FILE... --config TABLES.yaml``: judge recorded events."""

from __future__ import annotations

import contextlib
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import click
from rich.console import Console

from tablewatch.config_file import load_config
from tablewatch.replay.files import file_runs
from tablewatch.replay.fold import fold
from tablewatch.replay.parallel import audit_in_parallel
from tablewatch.report import finding_json, finding_line, print_summary
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.config import ConfigError
from tablewatch.rules.decode import EventRejected
from tablewatch.rules.findings import Finding

EXIT_CLEAN, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2
# --jobs auto: inputs from this size (about 300,000 events) are shared among the cores,
# at most AUTO_JOBS_MAX processes (each share reads every line's table_id, so more
# processes cost each of them more; measured only on 2 cores: docs/audit_performance.md).
AUTO_JOBS_BYTES = 64 << 20
AUTO_JOBS_MAX = 4


def _jobs_option(_ctx: click.Context, _param: click.Parameter, value: str) -> int | None:
    """``--jobs``: a count of processes, or None for ``auto``."""
    if value == "auto":
        return None
    if not value.isdigit() or int(value) < 1:
        raise click.BadParameter(f"{value!r} is neither a count of 1 or more nor 'auto'")
    return int(value)


def jobs_for(files: Sequence[Path], jobs: int | None) -> int:
    """The processes for ``--jobs`` over ``files`` (``jobs`` None: auto)."""
    if jobs is not None:
        return jobs
    size = 0
    for path in files:
        with contextlib.suppress(OSError):  # an unreadable file is reported when read
            size += path.stat().st_size
    if size < AUTO_JOBS_BYTES:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, AUTO_JOBS_MAX))


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--config",
    "config_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Table configuration YAML (the casino's Rules Submission).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table: one line per finding and a summary; json: one object per line.",
)
@click.option(
    "--jobs",
    "jobs_option",
    default="auto",
    show_default=True,
    metavar="N|auto",
    callback=_jobs_option,
    help="Processes to share the tables among (the output is the same). auto: one for "
    f"inputs under {AUTO_JOBS_BYTES >> 20} MB, else one per core (at most {AUTO_JOBS_MAX}).",
)
def audit(files: tuple[Path, ...], config_path: Path, fmt: str, jobs_option: int | None) -> None:
    """Judge every round in FILES (JSON Lines, tables interleaved) and print the findings.

    Exit 0: no findings; 1: findings; 2: unreadable input or configuration, or bad
    lines: each is reported on stderr (file:line, event_id, field, reason) and the
    rest is still audited. A line longer than 1 MiB (1,048,576 bytes) is a bad line,
    skipped unread. 141: the reader of the output stopped reading (| head), with no
    message, as a process ended by SIGPIPE.
    """
    jobs = jobs_for(files, jobs_option)
    err = Console(stderr=True, highlight=False)
    try:
        configs = load_config(config_path)
    except ConfigError as exc:
        for problem in exc.problems:
            err.print(f"tablewatch audit: {problem}", markup=False, soft_wrap=True)
        sys.exit(EXIT_BAD_INPUT)
    counts: Counter[str] = Counter()
    rejected = 0

    def emit(item: Finding | EventRejected | str) -> None:
        nonlocal rejected
        if isinstance(item, Finding):
            counts[item.check] += 1
            _emit(item, fmt)
        else:
            rejected += 1
            err.print(f"rejected: {item}", markup=False)

    if jobs > 1:
        shared = audit_in_parallel(files, config_path, jobs)
        for item in shared.items:
            emit(item)
        if shared.error is not None:
            err.print(f"tablewatch audit: {shared.error[0]}: {shared.error[1]}", markup=False)
            sys.exit(EXIT_BAD_INPUT)
        events, duplicates, rounds = shared.events, shared.duplicates, shared.rounds
    else:
        auditor = Auditor(configs)
        try:
            for outcome in fold(auditor, file_runs(files)):
                if isinstance(outcome, EventRejected):
                    emit(outcome)
                else:
                    for finding in findings_of((outcome,)):
                        emit(finding)
        except BrokenPipeError:  # stdout's reader went away: the group ends quietly
            raise
        except OSError as exc:
            err.print(f"tablewatch audit: {exc.filename}: {exc.strerror}", markup=False)
            sys.exit(EXIT_BAD_INPUT)
        stats = auditor.stats
        events, duplicates, rounds = stats.events, stats.duplicates, stats.rounds
    sys.stdout.flush()
    line = (
        f"{events:,} events ({duplicates:,} duplicates ignored, {rejected:,} "
        f"rejected), {rounds:,} rounds, {sum(counts.values()):,} findings"
    )
    console = err if fmt == "json" else Console(highlight=False)
    print_summary(console, counts, line)
    if rejected:
        sys.exit(EXIT_BAD_INPUT)
    sys.exit(EXIT_FINDINGS if counts else EXIT_CLEAN)


def _emit(finding: Finding, fmt: str) -> None:
    if fmt == "json":
        sys.stdout.buffer.write(finding_json(finding) + b"\n")
    else:
        sys.stdout.write(finding_line(finding) + "\n")
