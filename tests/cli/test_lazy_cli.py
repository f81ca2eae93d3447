"""``tablewatch``: subcommands imported only when one runs; the listing as click writes it."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from click.utils import make_default_short_help

from tablewatch.cli import COMMANDS, main


def test_help_imports_no_command_and_no_rules() -> None:
    code = (
        "import sys, json\n"
        "from tablewatch.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tablewatch'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    lines = done.stdout.decode().splitlines()
    loaded = json.loads(lines[-1])
    assert not [
        name for name in loaded if name.startswith(("tablewatch.commands", "tablewatch.rules"))
    ]
    assert any(line.startswith("  audit ") for line in lines)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_one_line_help_is_the_commands_own(name: str) -> None:
    command = COMMANDS[name].load()
    assert command.name == name
    assert make_default_short_help(COMMANDS[name].help, 500) == command.get_short_help_str(500)


def test_the_listing_is_what_click_prints_for_the_loaded_commands() -> None:
    eager = click.Group(
        "tablewatch",
        help=main.help,
        context_settings={"help_option_names": ["-h", "--help"]},
        commands={name: entry.load() for name, entry in COMMANDS.items()},
    )
    lazy = CliRunner().invoke(main, ["--help"], prog_name="tablewatch")
    assert lazy.exit_code == 0
    assert lazy.output == CliRunner().invoke(eager, ["--help"], prog_name="tablewatch").output


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_runs_through_the_group(name: str) -> None:
    result = CliRunner().invoke(main, [name, "--help"], prog_name="tablewatch")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: tablewatch {name} ")


def test_an_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["audti"], prog_name="tablewatch")
    assert result.exit_code == 2
    assert "No such command 'audti'" in result.output
