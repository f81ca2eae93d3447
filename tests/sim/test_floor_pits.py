"""The simulated floor's tables stand in pits of four, each filmed by two cameras."""

from __future__ import annotations

import random

from tablewatch.rules.config import parse_config
from tablewatch.sim.floor_config import floor_config
from tests.sim.floors import FIRST_TWO


def test_tables_stand_in_pits_of_four_with_two_cameras_each() -> None:
    configs = parse_config(floor_config(9, random.Random(1), FIRST_TWO))
    assert [(t, c.pit, c.cameras) for t, c in configs.items()] == [
        ("LIR-01", "Pit 1", ("CAM-01A", "CAM-01B")),
        ("FCP-02", "Pit 1", ("CAM-02A", "CAM-02B")),
        ("LIR-03", "Pit 1", ("CAM-03A", "CAM-03B")),
        ("FCP-04", "Pit 1", ("CAM-04A", "CAM-04B")),
        ("LIR-05", "Pit 2", ("CAM-05A", "CAM-05B")),
        ("FCP-06", "Pit 2", ("CAM-06A", "CAM-06B")),
        ("LIR-07", "Pit 2", ("CAM-07A", "CAM-07B")),
        ("FCP-08", "Pit 2", ("CAM-08A", "CAM-08B")),
        ("LIR-09", "Pit 3", ("CAM-09A", "CAM-09B")),
    ]
