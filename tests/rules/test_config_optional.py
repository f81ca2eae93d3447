"""The configuration's optional keys: pit, cameras, signing, keys (no rule reads them)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tablewatch.rules.config import ConfigError, parse_config, parse_table


def lir(**fields: Any) -> dict[str, Any]:
    return {"game": "let_it_ride", "paytables": {"main": "A"}, **fields}


def fcp(**fields: Any) -> dict[str, Any]:
    return {"game": "four_card_poker", "paytables": {"aces_up": "C"}, **fields}


def test_a_table_without_them() -> None:
    config = parse_table("LIR-07", lir())
    assert (config.pit, config.cameras, config.signing, dict(config.keys)) == (None, (), "off", {})
    assert not config.signing_required


def test_the_protocol_example() -> None:
    document = yaml.safe_load(
        """
tables:
  FCP-02:
    game: four_card_poker
    paytables: {aces_up: C, progressive: A, envy: A}
    counting_shuffler: true
    progressive_reset: 500000
    pit: "Pit 3"
    cameras: [CAM-031, CAM-032]
    signing: required
    keys: {k2026a: TABLEWATCH_KEY_FCP02_A, k2026b: TABLEWATCH_KEY_FCP02_B}
  LIR-07:
    game: let_it_ride
    paytables: {main: A}
    signing: off
"""
    )
    configs = parse_config(document)
    fcp02 = configs["FCP-02"]
    assert fcp02.pit == "Pit 3"
    assert fcp02.cameras == ("CAM-031", "CAM-032")
    assert fcp02.signing_required
    assert list(fcp02.keys.items()) == [
        ("k2026a", "TABLEWATCH_KEY_FCP02_A"),
        ("k2026b", "TABLEWATCH_KEY_FCP02_B"),
    ]
    assert configs["LIR-07"].signing == "off"  # YAML's false, as `off` reads


@pytest.mark.parametrize(
    "table",
    [
        lir(signing="off", keys={"k1": "KEY_1"}),  # off with keys: present signatures checked
        lir(signing=False),
        lir(cameras=[]),
        lir(pit="x" * 64, cameras=["桌-7", "CAM 1"]),
        fcp(signing="required", keys={"k-1": "_K", "k-2": "K2_b"}),
    ],
)
def test_valid(table: dict[str, Any]) -> None:
    parse_table("T-1", table)


@pytest.mark.parametrize(
    ("table", "words"),
    [
        (lir(pit=""), "pit: empty: a name is 1 to 64 printable characters"),
        (lir(pit="p" * 65), "pit: longer than 64 characters"),
        (lir(pit="Pit\n3"), "pit: holds U+000A, which is not a printable character"),
        (lir(pit=3), "pit: a name is 1 to 64 printable characters, not a number (quote it)"),
        (lir(cameras="CAM-1"), "cameras: a list of camera ids ([CAM-031, CAM-032]), not a string"),
        (lir(cameras=["CAM-1", ""]), "cameras[1]: empty: a camera id is 1 to 64"),
        (lir(cameras=["CAM-1", 32]), "cameras[1]: a camera id is 1 to 64 printable characters"),
        (lir(signing="yes"), "signing: 'yes' is not `required` or `off`"),
        (lir(signing=True), "signing: true (YAML reads on, yes and true so) is not `required`"),
        (fcp(signing="required"), "signing: required needs at least one key in `keys`"),
        (fcp(signing="required", keys={}), "signing: required needs at least one key"),
        (fcp(keys=["KEY_1"]), "keys: a mapping {KID: ENV_VAR_NAME}"),
        (fcp(keys={2026: "KEY_1"}), "keys: kid 2026: a kid is 1 to 64 printable characters"),
        (fcp(keys={"": "KEY_1"}), "keys: kid '': empty: a kid is 1 to 64"),
        (fcp(keys={"k" * 65: "KEY_1"}), "longer than 64 characters: a kid"),
        (fcp(keys={"k1": "1KEY"}), "keys.k1: not the name of an environment variable"),
        (fcp(keys={"k1": "KEY-1"}), "keys.k1: not the name of an environment variable"),
        (fcp(keys={"k1": ""}), "keys.k1: not the name of an environment variable"),
        (fcp(keys={"k1": None}), "keys.k1: not the name of an environment variable"),
    ],
)
def test_refused_with_the_table_the_key_and_the_reason(table: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"tables": {"FCP-09": table}})
    assert str(info.value).startswith("table FCP-09: ")
    assert words in str(info.value)


def test_a_key_written_in_place_of_its_variable_is_not_repeated() -> None:
    secret = "c2VjcmV0LWtleS1ieXRlcy0xMjM0NTY3ODkw+/=="
    with pytest.raises(ConfigError) as info:
        parse_table("FCP-09", fcp(signing="required", keys={"k1": secret}))
    assert secret not in str(info.value)
    assert "never the key itself" in str(info.value)
