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


NOT_TEXT = {
    "utf-16": ("tables: {}\n".encode("utf-16"), "not UTF-8 text: UTF-16 text (save it as UTF-8)"),
    "binary": (b"\x7fELF\x02\x01\x01\x00\x00\x00\xb7\x00" * 8, "not UTF-8 text: binary data"),
    "latin-1": ("tables:\n  CAFÉ-1: {}\n".encode("latin-1"), "an invalid byte 0xc9"),
    "nul": (b"tables:\n  A: \x00\n", "not valid YAML: special characters are not allowed"),
}


@pytest.mark.parametrize("kind", sorted(NOT_TEXT))
@pytest.mark.parametrize("command", ["audit", "rounds show", "replay"])
def test_a_configuration_that_is_not_utf8_text_is_one_line_and_exit_2(
    tmp_path: Path, kind: str, command: str
) -> None:
    """UTF-16, binary, a Latin-1 byte, a NUL: each command names the file and the reason on
    one line (no traceback) and exits 2."""
    from tablewatch.cli import main

    content, reason = NOT_TEXT[kind]
    config = tmp_path / "tables.yaml"
    config.write_bytes(content)
    events = str(EXAMPLES / "shift.jsonl")
    args = {
        "audit": ["audit", events],
        "rounds show": ["rounds", "show", "LIR-07", "R-1"],
        "replay": ["replay", "--source", "files", events, "--dsn", f"chdb:///{tmp_path / 's'}"],
    }[command]
    result = CliRunner().invoke(main, [*args, "--config", str(config)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.stderr.startswith(f"tablewatch {command}: {config}")
    assert reason in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
