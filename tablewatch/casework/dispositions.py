"""The dispositions a case may be closed with: the configured list.

The site sets its own in the alerts rules file (``casework: {dispositions: [...]}``,
read by :mod:`tablewatch.alerts.rules_file`); without one, :data:`DEFAULT_DISPOSITIONS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from tablewatch.casework.model import text_refusal

DEFAULT_DISPOSITIONS: Final = (
    "confirmed: corrected at the table",
    "confirmed: not corrected, referred",
    "not an error: controller fault",
    "not an error: rules configuration",
    "duplicate",
)
MAX_DISPOSITION: Final = 100
MAX_DISPOSITIONS: Final = 50


def dispositions_refusal(values: Sequence[object]) -> str | None:
    """Why ``values`` is refused as the list of dispositions, or None: it must hold 1 to
    50 distinct texts of 1 to 100 characters, no control characters."""
    if not values:
        return "the list is empty: give at least one disposition"
    if len(values) > MAX_DISPOSITIONS:
        return f"{len(values)} dispositions, over {MAX_DISPOSITIONS}"
    seen: set[str] = set()
    for index, value in enumerate(values):
        if not isinstance(value, str):
            return f"item {index + 1} is not text"
        problem = text_refusal(f"item {index + 1}", value, required=True, limit=MAX_DISPOSITION)
        if problem is None and ("\n" in value or "\t" in value):
            problem = f"item {index + 1} holds a line feed or tab"
        if problem is not None:
            return problem
        if value in seen:
            return f"item {index + 1} ({value!r}) is given twice"
        seen.add(value)
    return None


def parse_dispositions(values: Sequence[object]) -> tuple[str, ...]:
    """``values`` as the list of dispositions; ValueError with the reason."""
    problem = dispositions_refusal(values)
    if problem is not None:
        raise ValueError(f"casework.dispositions: {problem}")
    return tuple(str(v) for v in values)
