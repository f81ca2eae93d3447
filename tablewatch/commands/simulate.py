"""``tablewatch simulate``: a casino floor with injected dealer errors, and the truth about them."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click
import msgspec
import yaml

from tablewatch.ingest.client import BatchPoster, PostFailed
from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import AnyEvent
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import choose, played
from tablewatch.sim.injections import parse_pattern
from tablewatch.sim.pacing import paced
from tablewatch.sim.players import parse_hole_carder
from tablewatch.sim.signing import FloorKeys, floor_keys

_PLAYED = ", ".join(game.rules.name for game in played())


@click.command(
    help="Simulate a casino floor with injected dealer errors, and the truth about them. "
    "Its tables take the games in turn: "
    + ", ".join(f"{game.rules.title} {game.prefix}" for game in played())
    + "."
)
@click.option("--tables", default=12, show_default=True, help="Tables on the floor.")
@click.option(
    "--games",
    metavar="NAME[,NAME...]",
    help=f"The games on the floor, in the order the tables take them (among {_PLAYED}); "
    "default: every one, in that order.",
)
@click.option(
    "--rounds", default=2000, show_default=True, help="Rounds in all, shared by the tables."
)
@click.option("--seed", default=1, show_default=True, help="Same seed, same bytes.")
@click.option(
    "--error-rate", default=0.05, show_default=True, help="Share of rounds given an error."
)
@click.option(
    "--jackpot-rate", default=0.0, show_default=True, help="Share of rounds given a rare hand."
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write events.jsonl, tables.yaml and truth.jsonl here (not with --follow: the "
    "same options give the same floor, so a run with --out gives a followed floor's files, "
    "its events at the floor's own dates).",
)
@click.option(
    "--follow",
    is_flag=True,
    help="Emit the events to stdout at table pace, each stamped with the time it is sent "
    "(not with --out).",
)
@click.option(
    "--speed",
    default=1.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="With --follow: times faster than life.",
)
@click.option(
    "--post",
    "post_url",
    metavar="URL",
    help="With --follow: POST the events to this ingest endpoint (e.g. "
    "http://127.0.0.1:8077/events) every 200 ms or 500 events, instead of stdout.",
)
@click.option(
    "--sign",
    is_flag=True,
    help="Sign every event (kid, sig) with its table's key from $TABLEWATCH_KEY_<TABLE>; "
    "with --out, tables.yaml says signing: required and keys not set in the environment "
    "are made and written to keys.env (--follow needs them set).",
)
@click.option(
    "--pattern",
    "patterns",
    multiple=True,
    metavar="KIND:TABLE:...",
    help="Inject a pattern across rounds at a table (its number from 0), repeatable: "
    "hold:TABLE:X (chips walked: in a share X of its rounds every wager the house won is "
    "pushed), meter:TABLE:X (the progressive meter grows by its rate times 1+X), "
    "dealer:TABLE:SEAT:X (a colluding dealer, every other down, overpays SEAT in a share X "
    "of his rounds).",
)
@click.option(
    "--hole-carder",
    "hole_carders",
    multiple=True,
    metavar="TABLE:SEAT:P[:PLAYER_ID]",
    help="A player at SEAT of a table (its number from 0) every round who sees the first "
    "hidden card (the dealer's first, or the first community card) in a share P of rounds "
    "and then takes the option best with it, where the simulator plays one (else exit 2); "
    "his wagers carry PLAYER_ID if given; repeatable.",
)
def simulate(
    tables: int,
    games: str | None,
    rounds: int,
    seed: int,
    error_rate: float,
    jackpot_rate: float,
    out_dir: Path | None,
    follow: bool,
    speed: float,
    post_url: str | None,
    sign: bool,
    patterns: tuple[str, ...],
    hole_carders: tuple[str, ...],
) -> None:
    if not 0 <= error_rate <= 1 or not 0 <= jackpot_rate <= 1:
        raise click.BadParameter("rates are shares from 0 to 1")
    if tables < 1 or rounds < 0:
        raise click.BadParameter("at least one table, and no negative number of rounds")
    if out_dir is None and not follow:
        raise click.UsageError("say where: --out DIR, or --follow")
    if out_dir is not None and follow:
        raise click.UsageError(
            "--out writes the floor to files, --follow streams it: give one. The same "
            "options give the same floor: run once with --out for its tables.yaml and "
            "truth.jsonl"
        )
    if post_url is not None and not follow:
        raise click.UsageError("--post needs --follow")
    try:
        played = choose(games)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--games") from None
    try:
        carders = tuple(parse_hole_carder(text) for text in hole_carders)
        injected = tuple(parse_pattern(text) for text in patterns)
        floor = Floor(
            tables,
            rounds,
            seed,
            error_rate,
            jackpot_rate,
            played,
            patterns=injected,
            hole_carders=carders,
        )
    except ValueError as exc:
        hint = "--hole-carder" if str(exc).startswith("hole-carder") else "--pattern"
        raise click.BadParameter(str(exc), param_hint=hint) from None
    keys = _keys(floor, generate=not follow) if sign else None
    encode = keys.encoder() if keys is not None else encode_event
    if follow and post_url is not None:
        _follow_post(floor, speed, post_url, encode)
        return
    if follow:
        _follow(floor, speed, encode)
        return
    assert out_dir is not None
    out_dir.mkdir(parents=True, exist_ok=True)
    config = keys.signed_config(floor.config) if keys is not None else floor.config
    (out_dir / "tables.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    if keys is not None and keys.generated:
        _write_private(out_dir / "keys.env", keys.env_file())
    count = 0
    with (out_dir / "events.jsonl").open("wb") as out:
        buffer: list[bytes] = []
        for event in floor.events():
            buffer.append(encode(event))
            count += 1
            if len(buffer) >= 4096:
                out.write(b"\n".join(buffer) + b"\n")
                buffer = []
        if buffer:
            out.write(b"\n".join(buffer) + b"\n")
    truth = floor.truth()
    encoder = msgspec.json.Encoder()
    with (out_dir / "truth.jsonl").open("wb") as out:
        for record in truth:
            out.write(encoder.encode(record) + b"\n")
    click.echo(
        f"{count:,} events, {rounds:,} rounds on {tables} tables, {len(truth):,} injected "
        f"errors -> {out_dir}",
        err=True,
    )


def _keys(floor: Floor, generate: bool) -> FloorKeys:
    try:
        return floor_keys(list(floor.config["tables"]), os.environ, generate)
    except KeyError as missing:
        raise click.UsageError(
            f"--sign --follow signs with keys from the environment; not set: {missing.args[0]} "
            "(make them with --out DIR --sign, then: set -a; . DIR/keys.env; set +a)"
        ) from None


def _write_private(path: Path, text: str) -> None:
    """``text`` in ``path``, readable by its owner only (it holds keys)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # an existing file keeps its mode otherwise
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)


def _follow(floor: Floor, speed: float, encode: Callable[[AnyEvent], bytes]) -> None:
    out = sys.stdout.buffer

    def wait(seconds: float) -> None:
        out.flush()
        time.sleep(seconds)

    for event in paced(floor.present(speed), 1.0, wait):
        out.write(encode(event) + b"\n")
    out.flush()


def _follow_post(floor: Floor, speed: float, url: str, encode: Callable[[AnyEvent], bytes]) -> None:
    """Like ``_follow``, but the events go to the HTTP ingest endpoint in batches."""
    poster = BatchPoster(url, max_events=500, max_delay=0.2)
    try:
        for event in paced(floor.present(speed), 1.0, poster.wait):
            poster.add(encode(event))
        poster.close()
    except PostFailed as exc:
        raise click.ClickException(f"{url}: {exc}") from None
    finally:
        click.echo(
            f"{poster.posts:,} posts: {poster.accepted:,} accepted, {poster.duplicates:,} "
            f"duplicates, {poster.rejected:,} rejected -> {url}",
            err=True,
        )
    for row in poster.rejections:
        click.echo(
            f"rejected: item {row['index']} (event_id {row['event_id']}): "
            f"field `{row['field']}`: {row['reason']}",
            err=True,
        )
    if poster.rejected:
        sys.exit(2)
