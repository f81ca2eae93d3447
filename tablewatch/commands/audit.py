"""``tablewatch audit FILE... --config TABLES.yaml``: judge recorded events."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click
from rich.console import Console

from tablewatch.config_file import load_config
from tablewatch.ingest.files import read_jsonl
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
def audit(files: tuple[Path, ...], config_path: Path, fmt: str) -> None:
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
    auditor = Auditor(configs)
    counts: Counter[str] = Counter()
    rejected = 0
    try:
        for item in read_jsonl(files):
            if isinstance(item, EventRejected):
                rejected += 1
                err.print(f"rejected: {item}", markup=False)
                continue
            for finding in findings_of(auditor.feed(item)):
                counts[finding.check] += 1
                _emit(finding, fmt)
    except OSError as exc:
        err.print(f"tablewatch audit: {exc.filename}: {exc.strerror}", markup=False)
        sys.exit(EXIT_BAD_INPUT)
    for finding in findings_of(auditor.finish()):
        counts[finding.check] += 1
        _emit(finding, fmt)
    sys.stdout.flush()
    stats = auditor.stats
    line = (
        f"{stats.events:,} events ({stats.duplicates:,} duplicates ignored, {rejected:,} "
        f"rejected), {stats.rounds:,} rounds, {sum(counts.values()):,} findings"
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
