"""Panels on Grafana's grid (24 columns): left to right in reading order, a new line when
the next panel does not fit. No two panels overlap by construction; ``overlaps`` checks a
dashboard's JSON."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tablewatch.dashboards.panels import PanelSql

COLUMNS = 24
Box = tuple[int, int, int, int]  # x, y, w, h


def place(panels: Sequence[PanelSql]) -> list[Box]:
    boxes: list[Box] = []
    x = y = line_height = 0
    for panel in panels:
        width = min(panel.width, COLUMNS)
        if x + width > COLUMNS:
            x, y, line_height = 0, y + line_height, 0
        boxes.append((x, y, width, panel.height))
        x += width
        line_height = max(line_height, panel.height)
    return boxes


def overlaps(boxes: Iterable[Box]) -> list[tuple[Box, Box]]:
    """Every pair of boxes that share a cell."""
    listed = list(boxes)
    out = []
    for i, a in enumerate(listed):
        for b in listed[i + 1 :]:
            if (
                a[0] < b[0] + b[2]
                and b[0] < a[0] + a[2]
                and a[1] < b[1] + b[3]
                and b[1] < a[1] + a[3]
            ):
                out.append((a, b))
    return out
