"""``tablewatch audit FILE --config CONFIG --format json`` run in the test's process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from tablewatch.commands.audit import audit


def audit_json(events: Path, config: Path) -> Result:
    """The audit of a file that has findings (exit 1): its stdout one finding per line, its
    summary on stderr."""
    result = CliRunner().invoke(
        audit, [str(events), "--config", str(config), "--format", "json", "--jobs", "1"]
    )
    assert result.exit_code == 1, result.output
    return result


def findings_of(result: Result) -> list[dict[str, Any]]:
    """The audit's findings, each as its JSON object."""
    return [json.loads(line) for line in result.stdout.splitlines()]
