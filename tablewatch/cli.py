"""The ``tablewatch`` command line."""

from __future__ import annotations

import click

from tablewatch.commands.audit import audit
from tablewatch.commands.db import db
from tablewatch.commands.edge import edge
from tablewatch.commands.ingest import ingest, serve_ingest
from tablewatch.commands.live import live
from tablewatch.commands.native import native
from tablewatch.commands.simulate import simulate
from tablewatch.commands.worker import worker


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """TableWatch: audit Four Card Poker and Let It Ride rounds against the PA regulations."""


main.add_command(audit)
main.add_command(edge)
main.add_command(ingest)
main.add_command(serve_ingest)
main.add_command(live)
main.add_command(simulate)
main.add_command(db)
main.add_command(worker)
main.add_command(native)


if __name__ == "__main__":
    main()
