"""`tablewatch sign` and `tablewatch simulate --sign`: what they sign verifies at ingest, and
an unsigned floor is the same bytes as ever."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import yaml
from click.testing import CliRunner

from tablewatch.commands.audit import audit
from tablewatch.commands.sign import sign
from tablewatch.commands.simulate import simulate
from tablewatch.config_file import load_config
from tablewatch.ingest.batch import Item
from tablewatch.ingest.service import Ingestor
from tablewatch.ingest.signing import SignatureCheck
from tablewatch.ingest.sink import MemorySink
from tablewatch.table_keys import load_keys
from tests.ingest.events import edited

KEY_TEXT = "sign-command test key: Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2"


def env_file(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def ingested(lines: list[bytes], config: Path, env: dict[str, str]) -> list[str]:
    """The status of each line through ingest with ``config``'s signature rule."""
    check = SignatureCheck(load_keys(load_config(config), env))
    ingestor = Ingestor(MemorySink(), signatures=check)
    items = [Item(f"line {i}", raw) for i, raw in enumerate(lines, 1)]
    return [o.status for o in ingestor.ingest_items(items, "test").outcomes]


def simulated(tmp_path: Path, name: str, *options: str, env: dict[str, str] | None = None) -> Path:
    out = tmp_path / name
    args = ["--tables", "3", "--rounds", "24", "--seed", "9", "--error-rate", "0.2"]
    result = CliRunner().invoke(simulate, [*args, "--out", str(out), *options], env=env)
    assert result.exit_code == 0, result.output
    return out


def test_simulate_sign(tmp_path: Path) -> None:
    plain = simulated(tmp_path, "plain")
    signed = simulated(tmp_path, "signed", "--sign")
    assert not (plain / "keys.env").exists()
    keys = env_file(signed / "keys.env")
    assert list(keys) == ["TABLEWATCH_KEY_FCP_01", "TABLEWATCH_KEY_LIR_02", "TABLEWATCH_KEY_TCP_03"]
    assert stat.S_IMODE((signed / "keys.env").stat().st_mode) == 0o600
    config = yaml.safe_load((signed / "tables.yaml").read_text())
    assert config["tables"]["TCP-03"]["signing"] == "required"
    assert config["tables"]["TCP-03"]["keys"] == {"sim-1": "TABLEWATCH_KEY_TCP_03"}
    assert (signed / "truth.jsonl").read_bytes() == (plain / "truth.jsonl").read_bytes()

    lines = (signed / "events.jsonl").read_bytes().splitlines()
    # each line is the unsigned floor's line with kid and sig added at the end
    unsigned = (plain / "events.jsonl").read_bytes().splitlines()
    assert [line[: line.index(b',"kid":"sim-1","sig":"')] for line in lines] == [
        line[:-1] for line in unsigned
    ]
    assert set(ingested(lines, signed / "tables.yaml", keys)) == {"accepted"}
    assert set(ingested(unsigned, signed / "tables.yaml", keys)) == {"rejected"}
    # the audit judges the signed floor as the unsigned one
    json_options = ["--format", "json", "--jobs", "1"]
    audits = [
        CliRunner().invoke(
            audit,
            [str(floor / "events.jsonl"), "--config", str(floor / "tables.yaml"), *json_options],
        )
        for floor in (plain, signed)
    ]
    assert [a.exit_code for a in audits] == [1, 1]
    assert audits[0].stdout == audits[1].stdout and audits[0].stdout

    # the same seed and the same keys (from the environment): the same bytes, no keys.env
    again = simulated(tmp_path, "again", "--sign", env=keys)
    assert (again / "events.jsonl").read_bytes() == (signed / "events.jsonl").read_bytes()
    assert not (again / "keys.env").exists()


def test_simulate_sign_follow_needs_the_keys_in_the_environment() -> None:
    env = {f"TABLEWATCH_KEY_{t}": "" for t in ("FCP_01", "LIR_02", "TCP_03")}
    args = ["--tables", "3", "--rounds", "1", "--follow", "--speed", "1000", "--sign"]
    result = CliRunner().invoke(simulate, args, env=env)
    assert result.exit_code == 2
    assert "not set: TABLEWATCH_KEY_FCP_01, TABLEWATCH_KEY_LIR_02, TABLEWATCH_KEY_TCP_03" in (
        result.output
    )
    env["TABLEWATCH_KEY_FCP_01"] = env["TABLEWATCH_KEY_LIR_02"] = KEY_TEXT
    env["TABLEWATCH_KEY_TCP_03"] = KEY_TEXT
    result = CliRunner().invoke(simulate, args, env=env)
    assert result.exit_code == 0, result.output
    assert all(b'"kid":"sim-1","sig":"' in line for line in result.stdout_bytes.splitlines())


def test_sign_round_trip(tmp_path: Path) -> None:
    plain = simulated(tmp_path, "plain")
    config = yaml.safe_load((plain / "tables.yaml").read_text())
    for table in config["tables"].values():
        table.update(signing="required", keys={"k-2026": "TW_SIGN_KEY", "k-2025": "TW_OLD_KEY"})
    config_path = tmp_path / "tables.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    env = {"TW_SIGN_KEY": KEY_TEXT, "TW_OLD_KEY": "another key"}
    lines = (plain / "events.jsonl").read_bytes().splitlines()
    bad = edited(lines[3], seq=0)
    other = edited(lines[4], table_id="NO-KEYS")
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\n".join([*lines[:3], b"", bad, other, *lines[5:]]) + b"\n")
    out = tmp_path / "signed.jsonl"

    result = CliRunner().invoke(
        sign, [str(source), "--config", str(config_path), "--out", str(out)], env=env
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"left out: {source}:5 (event_id {json.loads(bad)['event_id']}): field `seq`: "
        "Expected `int` >= 1: seq is at least 1 and below 2^53 (9,007,199,254,740,992)",
        f"left out: {source}:6 (event_id {json.loads(other)['event_id']}): table NO-KEYS has "
        f"no keys in {config_path}",
        f"{len(lines) - 2:,} events signed, 2 left out -> {out}",
    ]
    signed = out.read_bytes().splitlines()
    assert all(json.loads(line)["kid"] == "k-2026" for line in signed)  # the first key
    assert set(ingested(signed, config_path, env)) == {"accepted"}
    assert KEY_TEXT not in result.output

    # one key for every event, to stdout
    result = CliRunner().invoke(
        sign, [str(plain / "events.jsonl"), "--kid", "k-2025", "--key-env", "TW_OLD_KEY"], env=env
    )
    assert result.exit_code == 0, result.output
    assert set(ingested(result.stdout_bytes.splitlines(), config_path, env)) == {"accepted"}


def test_sign_refusals(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text("")
    runner = CliRunner()
    result = runner.invoke(sign, [str(events)])
    assert result.exit_code == 2 and "say which keys" in result.output
    result = runner.invoke(sign, [str(events), "--kid", "k1"])
    assert result.exit_code == 2 and "--kid and --key-env go together" in result.output
    result = runner.invoke(
        sign, [str(events), "--kid", "k1", "--key-env", "TW_UNSET_KEY"], env={"TW_UNSET_KEY": ""}
    )
    assert result.exit_code == 2
    assert result.stderr == (
        "tablewatch sign: --key-env: environment variable TW_UNSET_KEY is empty "
        "(it holds the key)\n"
    )
    config = tmp_path / "tables.yaml"
    config.write_text(
        "tables:\n  LIR-01:\n    game: let_it_ride\n    paytables: {main: A}\n"
        "    signing: required\n    keys: {k1: TW_UNSET_KEY}\n"
    )
    os.environ.pop("TW_UNSET_KEY", None)
    result = runner.invoke(sign, [str(events), "--config", str(config)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"tablewatch sign: {config}: table LIR-01: keys.k1: environment variable TW_UNSET_KEY "
        "is not set (it holds the key)\n"
    )
