"""What a fuzzer saw: inputs, outcomes, rejections by the shape of their reason, time."""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field

_QUOTED = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"\d[\d,]*")


def shape(reason: str) -> str:
    """A reason with its particulars blanked (quoted names, numbers), to count kinds."""
    text = _QUOTED.sub("…", reason.splitlines()[0] if reason else "")
    return _NUMBER.sub("N", text)[:90]


@dataclass
class Tally:
    name: str
    inputs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    crashes: int = 0
    seconds: float = 0.0
    _started: float = field(default_factory=time.monotonic, repr=False)

    def saw(self, outcome: str, reason: str | None = None) -> None:
        self.outcomes[outcome] += 1
        if reason is not None:
            self.reasons[shape(reason)] += 1

    def count(self) -> None:
        self.inputs += 1

    def stop(self) -> None:
        self.seconds = time.monotonic() - self._started

    @property
    def rejections(self) -> int:
        return sum(self.reasons.values())
