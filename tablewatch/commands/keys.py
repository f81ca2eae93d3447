"""``tablewatch keys``: the Ed25519 keys that sign the hash chains' checkpoints."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.group()
def keys() -> None:
    """The Ed25519 keys that sign the hash chains' checkpoints."""


@keys.command()
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The private key file to write (mode 0600; never overwritten); its public key "
    "goes to OUT.pub.",
)
def generate(out: Path) -> None:
    """Write a new private key to OUT and its public key to OUT.pub."""
    from tablewatch.integrity.keys import KeyFileError
    from tablewatch.integrity.keys import generate as new_key

    try:
        signer = new_key(out)
    except KeyFileError as exc:
        click.echo(f"tablewatch keys generate: {exc}", err=True)
        sys.exit(2)
    click.echo(
        f"key {signer.key_id}: private key in {out} (keep it secret), public key in {out}.pub"
    )
    click.echo(f"give it to the worker: tablewatch worker --checkpoint-key {out} ...")
