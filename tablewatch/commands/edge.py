"""``tablewatch edge GAME WAGER --paytable X``: the house edge of a wager under our pay tables."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from tablewatch.rules.edge import (
    EdgeResult,
    MonteCarloEdge,
    RowsEdge,
    exact_edge,
    games_with_edges,
    rows_table,
    wager_edge,
    wagers_of,
)
from tablewatch.rules.edge.result import Extra

EXIT_BAD_INPUT = 2

_PERCENT_EXTRAS = {
    "element_of_risk",
    "in_sample_house_edge",
    "standard_error",
    "hit_frequency",
}


@click.command()
@click.argument("game")
@click.argument("wager")
@click.option(
    "--paytable",
    "letter",
    default=None,
    help="Pay table letter, for a wager its game prices by lettered tables (or, for a "
    "wager settled with another, that one's); a wager with no pay table takes none.",
)
@click.option(
    "--rows",
    default=None,
    help="A pay table stated by rows, highest hand first, comma-separated "
    "(e.g. 40,30,6,3,1), for a wager the casino states by rows.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table: a few readable lines; json: one object.",
)
@click.option(
    "--samples",
    type=click.IntRange(min=2),
    default=None,
    help="Monte-Carlo only: evaluation deals [default: the wager's own].",
)
@click.option(
    "--train-samples",
    type=click.IntRange(min=1),
    default=None,
    help="Monte-Carlo only: training deals the strategy is learned from [default: the "
    "wager's own].",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Monte-Carlo only: seed (training and evaluation use independent streams of it) "
    "[default: the wager's own].",
)
@click.option(
    "--granularity",
    type=click.Choice(["coarse", "fine"]),
    default="fine",
    show_default=True,
    help="Monte-Carlo only: strategy cells (coarse: strength x up card rank; "
    "fine: also the player's cards matching the up card's rank and suit).",
)
def edge(
    game: str,
    wager: str,
    letter: str | None,
    rows: str | None,
    fmt: str,
    samples: int | None,
    train_samples: int | None,
    seed: int | None,
    granularity: str,
) -> None:
    """House edge of WAGER at GAME (every priced wager of every registered game), by exact
    enumeration through the pay tables, or by Monte-Carlo of a stated or learned play.

    Exit 2 for an unknown game, wager or pay table.
    """
    err = Console(stderr=True, highlight=False)
    problem = _check(game, wager, letter, rows)
    spec = wager_edge(game, wager) if problem is None else None
    if isinstance(spec, RowsEdge) and rows is not None:
        try:
            table = rows_table(game, wager, rows)
        except ValueError as exc:
            problem = str(exc)
    if problem:
        err.print(f"tablewatch edge: {problem}", markup=False, soft_wrap=True)
        sys.exit(EXIT_BAD_INPUT)
    if isinstance(spec, RowsEdge):
        with _progress(err) as progress:
            result = spec.compute(game, table, progress)
    elif isinstance(spec, MonteCarloEdge):
        asked = {"samples": samples, "train_samples": train_samples, "seed": seed}
        options: dict[str, object] = {k: v for k, v in asked.items() if v is not None}
        if spec.tables is not None:
            options["letter"] = letter
        with _progress(err) as progress:
            result = spec.compute(
                game,
                granularity="coarse" if granularity == "coarse" else "fine",
                progress=progress,
                **options,
            )
    else:
        assert letter is not None
        result = exact_edge(game, wager, letter)
    if fmt == "json":
        click.echo(json.dumps(result.as_json()))
    else:
        click.echo(render_table(result))


def _check(game: str, wager: str, letter: str | None, rows: str | None) -> str | None:
    games = games_with_edges()
    if game not in games:
        return f"unknown game {game!r} (one of {', '.join(games)})"
    wagers = wagers_of(game)
    if wager not in wagers:
        return f"{game} has no wager {wager!r} here (one of {', '.join(wagers)})"
    spec = wager_edge(game, wager)
    if isinstance(spec, RowsEdge):
        if letter is not None or rows is None:
            return (
                f"{game} {wager} takes its pay table by rows: give --rows "
                f"({len(spec.rows.hands)} rows, highest hand first: {', '.join(spec.rows.hands)})"
            )
        return None
    if rows is not None:
        return f"{game} {wager} has no pay table stated by rows: leave out --rows"
    if isinstance(spec, MonteCarloEdge) and spec.tables is None:
        if letter is not None:
            return f"{game} {wager} has no lettered pay table: leave out --paytable"
        return None
    assert spec.tables is not None
    letters = ", ".join(spec.tables)
    if letter is None:
        return f"{game} {wager} needs --paytable (one of {letters})"
    if letter not in spec.tables:
        return f"{letter!r} is not a pay table of {game} {wager} (one of {letters})"
    return None


@contextmanager
def _progress(err: Console) -> Iterator[Callable[[str, int, int], None] | None]:
    if not sys.stderr.isatty():
        yield None
        return
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,} deals"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as bar:
        tasks: dict[str, TaskID] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done)

        yield update


def render_table(result: EdgeResult) -> str:
    """A few readable lines: the edge in percent with 4 decimals, then the extras."""
    title = f"{result.game} {result.wager}"
    if result.paytable is not None:
        title += f", pay table {result.paytable}"
    how = (
        f"exact, {result.hands:,} hands"
        if result.exact
        else f"Monte-Carlo, {result.hands:,} evaluation deals"
    )
    lines = [title, f"  house edge             {_pct(result.house_edge)}  ({how})"]
    if result.ci95 is not None:
        lo, hi = result.ci95
        lines.append(f"  95% CI                 {_pct(lo)} .. {_pct(hi)}")
    for key, value in result.extras.items():
        lines.append(f"  {key.replace('_', ' '):<22} {_extra(key, value)}")
    lines.append(f"  {'seconds':<22} {result.seconds:.2f}")
    return "\n".join(lines)


def _pct(fraction: float) -> str:
    return f"{fraction * 100:.4f}%"


def _extra(key: str, value: Extra) -> str:
    if isinstance(value, float):
        if key in _PERCENT_EXTRAS or key.endswith(("_rate", "_probability", "_edge")):
            return _pct(value)
        return f"{value:.6g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)
