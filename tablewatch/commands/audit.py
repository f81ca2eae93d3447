"""``tablewatch audit FILE... --config TABLES.yaml``: judge recorded events."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click
from rich.console import Console

from tablewatch.commands.audit_parallel import audit_in_parallel
from tablewatch.config_file import load_config
from tablewatch.ingest.files import read_blocks
from tablewatch.report import finding_json, finding_line, print_summary
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.config import ConfigError
from tablewatch.rules.decode import EventRejected
from tablewatch.rules.findings import Finding

EXIT_CLEAN, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2


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
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Processes to share the tables among (the output is the same).",
)
def audit(files: tuple[Path, ...], config_path: Path, fmt: str, jobs: int) -> None:
    """Judge every round in FILES (JSON Lines, tables interleaved) and print the findings.

    Exit 0: no findings; 1: findings; 2: unreadable input or configuration
    (bad lines are reported on stderr and the rest is still audited).
    """
    err = Console(stderr=True, highlight=False)
    try:
        configs = load_config(config_path)
    except ConfigError as exc:
        err.print(f"tablewatch audit: {exc}", markup=False)
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
            for block in read_blocks(files):
                for events_run, rejection in block.decoded.runs():
                    for _, outcome in auditor.feed_many(events_run):
                        for finding in findings_of((outcome,)):
                            emit(finding)
                    if rejection is not None:
                        emit(rejection)
        except OSError as exc:
            err.print(f"tablewatch audit: {exc.filename}: {exc.strerror}", markup=False)
            sys.exit(EXIT_BAD_INPUT)
        for finding in findings_of(auditor.finish()):
            emit(finding)
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
