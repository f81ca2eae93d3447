"""The ``tablewatch`` command line."""

from __future__ import annotations

import click

from tablewatch.commands.audit import audit
from tablewatch.commands.edge import edge
from tablewatch.commands.simulate import simulate


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """TableWatch: audit Four Card Poker and Let It Ride rounds against the PA regulations."""


main.add_command(audit)
main.add_command(edge)
main.add_command(simulate)


if __name__ == "__main__":
    main()
