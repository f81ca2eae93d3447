"""The ``tablewatch`` command line.

Subcommands are imported when one runs (:mod:`tablewatch.lazy_commands`):
``tablewatch --help`` lists them from the one-line helps below, which
``tests/cli/test_lazy_cli.py`` keeps equal to each command's own.
"""

from __future__ import annotations

import click

from tablewatch.lazy_commands import LazyCommand, LazyGroup

COMMANDS = {
    "access": LazyCommand(
        "tablewatch.commands.access:access",
        "Tokens and roles of the worker's endpoints (the access file).",
        rules=False,
    ),
    "alerter": LazyCommand(
        "tablewatch.commands.alerter:alerter",
        "Turn findings into Alertmanager alerts by rules; acknowledge, escalate, audit.",
    ),
    "alerts": LazyCommand(
        "tablewatch.commands.alerts:alerts",
        "Alertmanager's configuration, acknowledgements and the list of alerts.",
        rules=False,
    ),
    "audit": LazyCommand(
        "tablewatch.commands.audit:audit",
        "Judge every round in FILES (JSON Lines, tables interleaved) and print the findings.",
    ),
    "cases": LazyCommand(
        "tablewatch.commands.cases:cases",
        "Casework: the queue of findings' cases; claim, note, close, reopen (serve-api).",
        rules=False,
    ),
    "db": LazyCommand(
        "tablewatch.commands.db:db",
        "The ClickHouse store of events, judged rounds and findings.",
        rules=False,
    ),
    "dashboards": LazyCommand(
        "tablewatch.commands.dashboards:dashboards",
        "The Grafana dashboards: build the JSON and provisioning, publish, check their SQL.",
        rules=False,
    ),
    "edge": LazyCommand(
        "tablewatch.commands.edge:edge",
        "House edge of WAGER at GAME (every priced wager of every registered game), by exact "
        "enumeration through the pay tables, or by Monte-Carlo of a stated or learned play.",
    ),
    "findings": LazyCommand(
        "tablewatch.commands.auditor_lists:findings",
        "The stored findings, filtered, as a table, JSON Lines, CSV or Parquet.",
        rules=False,
    ),
    "ingest": LazyCommand(
        "tablewatch.commands.ingest:ingest",
        "Validate JSON Lines FILES and produce their events to Kafka.",
    ),
    "keys": LazyCommand(
        "tablewatch.commands.keys:keys",
        "The Ed25519 keys that sign the hash chains' checkpoints.",
        rules=False,
    ),
    "live": LazyCommand(
        "tablewatch.commands.live:live",
        "Run the live pipeline with a simulated floor for a while, then summarise.",
    ),
    "native": LazyCommand(
        "tablewatch.commands.native:native",
        "The compiled rules engine: same sources, same results, less time.",
        rules=False,
    ),
    "replay": LazyCommand(
        "tablewatch.commands.replay:replay",
        "Judge recorded events again and diff the findings with the live ones of the same rounds.",
    ),
    "report": LazyCommand(
        "tablewatch.commands.report:report",
        "Reports from the store: the shift report (PDF, CSV or JSON) of a date and shift.",
        rules=False,
    ),
    "rounds": LazyCommand(
        "tablewatch.commands.rounds:rounds",
        "One round reconstructed (rounds show), or the stored rounds filtered (rounds list).",
    ),
    "serve-api": LazyCommand(
        "tablewatch.commands.serve_api:serve_api",
        "Serve the auditor API (/api/v1/...) and pages (/, /findings ...): read-only but for "
        "casework (/api/v1/cases..., with --access-file), whose steps the desk writes.",
    ),
    "serve-ingest": LazyCommand(
        "tablewatch.commands.ingest:serve_ingest",
        "Serve POST /events (a JSON array of events), GET /health and GET /metrics.",
    ),
    "sign": LazyCommand(
        "tablewatch.commands.sign:sign",
        "Sign the events of JSON Lines FILES with their tables' keys (kid and sig added).",
    ),
    "patterns": LazyCommand(
        "tablewatch.commands.patterns:patterns",
        "Find the patterns across rounds (advantage play, a dealer's errors, hold, meter).",
    ),
    "simulate": LazyCommand(
        "tablewatch.commands.simulate:simulate",
        "Simulate a casino floor with injected dealer errors, and the truth about them.",
    ),
    "verify": LazyCommand(
        "tablewatch.commands.verify:verify",
        "Recompute the tables' hash chains and check their signed checkpoints, against the "
        "record kept outside the store.",
    ),
    "worker": LazyCommand(
        "tablewatch.commands.worker:worker",
        "Consume table-events, judge every round, write ClickHouse, rounds and findings.",
    ),
}


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
def main() -> None:
    """TableWatch: audit table-game rounds against the PA regulations."""


if __name__ == "__main__":
    main()
