"""``tablewatch audit --jobs N``: the tables shared among N processes, the output unchanged.

Each process (a *share*) reads every file, keeps the lines of its own tables
(:mod:`tablewatch.ingest.partition`), decodes and audits them, and returns
its findings and rejections, each keyed by where it arose: the line of the
event that completed it, or, for what the end of the input closes, the line
of its table's first event. Sorted on those keys, the merged items come out
in exactly the order one process prints them in.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tablewatch import native
from tablewatch.config_file import load_config
from tablewatch.ingest.files import line_blocks
from tablewatch.ingest.partition import Router
from tablewatch.rules.audit import Auditor, RoundOrFinding
from tablewatch.rules.decode import decode_lines
from tablewatch.rules.events import AnyEvent
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult

# (0, line, n): arose at that line (counted over all files, from 0); (1, line, n): at the
# end of the input, for the table whose first event is on that line. n keeps their order.
Key = tuple[int, int, int]
Item = Finding | str  # a finding, or the text of a rejected line


@dataclass(slots=True)
class ShareResult:
    items: list[tuple[Key, Item]] = field(default_factory=list)
    events: int = 0
    duplicates: int = 0
    rounds: int = 0
    error: tuple[str, str] | None = None  # (file, reason) of an input that could not be read


@dataclass(slots=True)
class ParallelAudit:
    """What the shares found, merged in one process's order."""

    items: list[Item]
    events: int
    duplicates: int
    rounds: int
    error: tuple[str, str] | None


def audit_in_parallel(files: Sequence[Path], config_path: Path, jobs: int) -> ParallelAudit:
    """Audit ``files`` in ``jobs`` processes (the configuration must already have loaded)."""
    # fork starts a share at once, with the modules already imported; elsewhere the
    # platform's own way (spawn) re-imports them, the compiled engine activated first.
    method = "fork" if sys.platform == "linux" else None
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=native.activate) as pool:
        futures = [
            pool.submit(audit_share, tuple(files), config_path, jobs, share)
            for share in range(jobs)
        ]
        results = [future.result() for future in futures]
    keyed = sorted((item for result in results for item in result.items), key=lambda item: item[0])
    errors = [result.error for result in results if result.error is not None]
    return ParallelAudit(
        items=[item for _, item in keyed],
        events=sum(result.events for result in results),
        duplicates=sum(result.duplicates for result in results),
        rounds=sum(result.rounds for result in results),
        error=errors[0] if errors else None,
    )


def audit_share(files: tuple[Path, ...], config_path: Path, shares: int, share: int) -> ShareResult:
    """Audit the tables of ``share`` (of ``shares``) in ``files``: one process's work."""
    auditor = Auditor(load_config(config_path))
    router = Router(shares, share)
    result = ShareResult()
    first_lines: dict[str, int] = {}  # table -> line of its first event, in the auditor's order
    done = 0  # lines of the input before the current block
    order = 0

    def keep(key_kind: int, line: int, item: Item) -> None:
        nonlocal order
        result.items.append(((key_kind, line, order), item))
        order += 1

    try:
        for path in files:
            where = str(path)
            for first, lines in line_blocks(path):
                chosen = router.select(lines)
                decoded = decode_lines(list(map(lines.__getitem__, chosen)), where, first, chosen)
                for index, rejected in decoded.failed:
                    if rejected is not None:
                        keep(0, done + chosen[index], str(rejected))
                event_lines = _event_lines(chosen, decoded.failed)
                tables_before = len(auditor.table_states())
                for index, outcome in auditor.feed_many(decoded.events):
                    for finding in _findings(outcome):
                        keep(0, done + event_lines[index], finding)
                if len(auditor.table_states()) > tables_before:
                    _note_first_lines(
                        auditor, first_lines, decoded.events, event_lines, done, tables_before
                    )
                done += len(lines)
    except OSError as exc:  # as one process: what came before is reported, then the error
        result.error = (str(exc.filename), exc.strerror or str(exc))
    else:  # the end of the input closes the open rounds, table after table
        for outcome in auditor.finish():
            for finding in _findings(outcome):
                keep(1, first_lines[outcome.table_id], finding)
    result.events = auditor.stats.events
    result.duplicates = auditor.stats.duplicates
    result.rounds = auditor.stats.rounds
    return result


def _event_lines(chosen: list[int], failed: Sequence[tuple[int, object]]) -> list[int]:
    """The line (index in the block) of each decoded event."""
    if not failed:
        return chosen
    skipped = {index for index, _ in failed}
    return [line for index, line in enumerate(chosen) if index not in skipped]


def _note_first_lines(
    auditor: Auditor,
    first_lines: dict[str, int],
    events: list[AnyEvent],
    event_lines: list[int],
    done: int,
    known: int,
) -> None:
    """The first line of each table this block brought to ``auditor``."""
    for table in auditor.table_states()[known:]:
        index = next(i for i, event in enumerate(events) if event.table_id == table.table_id)
        first_lines[table.table_id] = done + event_lines[index]


def _findings(outcome: RoundOrFinding) -> Iterator[Finding]:
    if isinstance(outcome, RoundResult):
        yield from outcome.findings
    else:
        yield outcome
