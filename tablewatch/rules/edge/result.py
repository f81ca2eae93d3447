"""The answer of a house-edge computation."""

from __future__ import annotations

from dataclasses import dataclass, field

Extra = float | int | str | None


@dataclass(frozen=True, slots=True)
class EdgeResult:
    """House edge of one wager under one pay table.

    ``house_edge`` is a fraction of the initial wager (positive: the house
    wins on average), of the unit the game's edge names in ``extras["unit"]``
    (one of several equal bets, the wager a decision adds to; else the wager
    itself). ``exact`` results come from a full
    enumeration of ``hands`` equally likely hands (``ci95`` is ``None``);
    Monte-Carlo results carry the 95% confidence interval of the evaluation
    run, whose size is ``hands``.
    """

    game: str
    wager: str
    paytable: str | None
    house_edge: float
    exact: bool
    hands: int
    ci95: tuple[float, float] | None = None
    seconds: float = 0.0
    extras: dict[str, Extra] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        """A flat mapping for JSON output (extras after the fixed keys)."""
        out: dict[str, object] = {
            "game": self.game,
            "wager": self.wager,
            "paytable": self.paytable,
            "house_edge": self.house_edge,
            "exact": self.exact,
            "ci95": list(self.ci95) if self.ci95 is not None else None,
            "hands": self.hands,
            "seconds": round(self.seconds, 3),
        }
        for key, value in self.extras.items():
            out.setdefault(key, value)
        return out
