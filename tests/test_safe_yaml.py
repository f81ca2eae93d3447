"""Every YAML file TableWatch reads is bounded (tablewatch/safe_yaml.py): an alias bomb, a
file nested too deep, an alias inside its own anchor and a device are refused at once with
one line naming the file; anchors within the bounds still load.

The loads run in a child process with a timeout: before the bounds, the bomb ran for
minutes (and /dev/zero was read without end), which fails these tests by the timeout
rather than hanging the suite."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablewatch.alerts.rules_file import RulesError, parse_rules
from tablewatch.config_file import load_config

# a "billion laughs": 9 strings, then 6 levels of 9 aliases of the level before (9^7
# strings once expanded), in 283 bytes
BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdef", "bcdefg", strict=True)
    )
    + "tables: {}\n"
)
LOADERS = {
    "config": "from tablewatch.config_file import load_config as load",
    "rules": "from tablewatch.alerts.rules_file import load_rules as load",
    "access": "from tablewatch.access.access_file import load",
}
CHILD = """
import sys, time, json
from pathlib import Path
{imports}
start = time.monotonic()
try:
    load(Path(sys.argv[1]))
    outcome = "loaded"
except Exception as exc:
    outcome = type(exc).__name__ + ": " + str(exc)
print(json.dumps({{"seconds": time.monotonic() - start, "outcome": outcome}}))
"""


def load_in_child(loader: str, path: str) -> tuple[float, str]:
    """How long ``loader`` took on ``path`` in a child process, and what it raised."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(imports=LOADERS[loader]), path],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    answer = json.loads(done.stdout)
    return float(answer["seconds"]), str(answer["outcome"])


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_an_alias_bomb_is_refused_within_a_second_naming_the_file(
    loader: str, tmp_path: Path
) -> None:
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(BOMB)
    seconds, outcome = load_in_child(loader, str(bomb))
    assert seconds < 1.0
    assert f"{bomb}:6: " in outcome  # the line of the first level past the bound (f)
    assert "over 100,000 values once its aliases are expanded" in outcome
    assert "\n" not in outcome


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_a_device_is_refused_after_one_mebibyte(loader: str) -> None:
    seconds, outcome = load_in_child(loader, "/dev/zero")
    assert seconds < 2.0
    assert "/dev/zero" in outcome
    assert "over 1,048,576 bytes" in outcome


def test_nesting_and_an_alias_within_its_anchor_are_refused_with_their_line() -> None:
    deep = "rules:\n  - " + "[" * 100 + "]" * 100 + "\n"
    with pytest.raises(RulesError) as caught:
        parse_rules(deep, "alerts.yaml")
    assert caught.value.problems == ["alerts.yaml:2: refused: collections nested more than 64 deep"]
    with pytest.raises(RulesError) as caught:
        parse_rules("contacts: {}\nrules: &r [*r]\n", "alerts.yaml")
    assert caught.value.problems == ["alerts.yaml:2: refused: an alias within its own anchor"]


def test_anchors_within_the_bounds_still_load_and_the_same_shape_past_them_does_not(
    tmp_path: Path,
) -> None:
    shared = "tables:\n  LIR-01: &lir {game: let_it_ride, paytables: {main: A}}\n  LIR-02: *lir\n"
    path = tmp_path / "tables.yaml"
    path.write_text(shared)
    configs = load_config(path)
    assert sorted(configs) == ["LIR-01", "LIR-02"]
    assert configs["LIR-02"].game == "let_it_ride"
    path.write_text(BOMB)
    with pytest.raises(Exception, match=r"tables.yaml:6: refused: over 100,000 values"):
        load_config(path)
