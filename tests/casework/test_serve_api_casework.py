"""serve-api's casework options: a bad access file or rules file stops it at the start,
naming the option and the reason."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tablewatch.cli import main


def serve(tmp_path: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, ["serve-api", "--dsn", f"chdb:///{tmp_path / 'store'}", *args], prog_name="tablewatch"
    )
    return result.exit_code, result.stderr


def test_a_missing_access_file_is_refused(tmp_path: Path) -> None:
    code, err = serve(tmp_path, "--access-file", str(tmp_path / "nope.yaml"))
    assert code == 2
    assert f"--access-file: {tmp_path / 'nope.yaml'}: no such file" in err


def test_bad_dispositions_are_refused(tmp_path: Path) -> None:
    rules = tmp_path / "alerts.yaml"
    rules.write_text(
        "contacts: {sm: {email: sm@casino.test}}\nshifts: {all: {start: '00:00', end: '00:00'}}\n"
        "pits: {}\nfallback: [sm]\nrules: [{name: all, min_severity: low}]\n"
        "casework: {dispositions: []}\n"
    )
    code, err = serve(tmp_path, "--rules", str(rules))
    assert code == 2
    assert "--rules: " in err and "casework.dispositions: the list is empty" in err
