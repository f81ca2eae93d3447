"""A table configuration refused: the file, where in it, and what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.commands.audit import audit
from tablewatch.config_file import load_config
from tablewatch.rules.config import ConfigError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _audit(config: Path) -> tuple[int, str]:
    result = CliRunner().invoke(audit, [str(EXAMPLES / "shift.jsonl"), "--config", str(config)])
    return result.exit_code, result.stderr


def test_a_yaml_error_names_the_file_line_and_column(tmp_path: Path) -> None:
    config = tmp_path / "tables.yaml"
    config.write_text(
        "tables:\n  LIR-07:\n    game: let_it_ride\n    paytables: {main: A\n  FCP-02: {}\n"
    )
    code, err = _audit(config)
    assert code == 2
    assert err == (
        f"tablewatch audit: {config}:5:9: not valid YAML: expected ',' or '}}', but got ':' "
        "(while parsing a flow mapping that begins at line 4, column 16)\n"
    )


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("tables:\n  A:\n    game: x\n   bad: 1\n", ":4:4:", "expected <block end>"),
        ("tables:\n  A: [1\n", ":3:1:", "expected ',' or ']', but got '<stream end>'"),
        ("tables:\n  A: @x\n", ":2:6:", "found character '@' that cannot start any token"),
        ("tables: !!python/object x\n", ":1:9:", "could not determine a constructor"),
    ],
)
def test_every_kind_of_yaml_error_is_placed(
    tmp_path: Path, text: str, where: str, what: str
) -> None:
    config = tmp_path / "tables.yaml"
    config.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    message = str(refused.value)
    assert message.startswith(f"{config}{where} not valid YAML: ")
    assert what in message
    assert "<unicode string>" not in message
    assert "\n" not in message


def test_every_problem_is_a_line_naming_the_file_table_key_and_rule(tmp_path: Path) -> None:
    config = tmp_path / "tables.yaml"
    config.write_text(
        "tables:\n"
        "  LIR-07: {game: let_it_ride, paytables: {main: C}, payout_limit: 100}\n"
        "  FCP-02: {game: four_card_poker, paytables: {aces_up: Z}}\n"
    )
    code, err = _audit(config)
    assert code == 2
    assert err.splitlines() == [
        f"tablewatch audit: {config}: table LIR-07: paytables.main: 'C' is not a pay table of "
        "§ 643a.12(a) (choose one of A, B)",
        f"tablewatch audit: {config}: table LIR-07: payout_limit $1.00 is under the "
        "$50,000.00 minimum per hand (§ 643a.12(e))",
        f"tablewatch audit: {config}: table FCP-02: paytables.aces_up: 'Z' is not a pay "
        "table of § 641a.12(c) (choose one of A, B, C, D, E, F)",
    ]
