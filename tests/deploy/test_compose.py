"""deploy/compose: the Compose file against the Compose specification's JSON schema, its
images pinned, its services' checks and order, and the files it mounts. No Docker engine
runs here: nothing is pulled or started (the stack itself: tests/deploy/test_stack.py,
behind the ``docker`` marker)."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from tablewatch.alerts.am_config import alertmanager_config
from tablewatch.alerts.rules_file import load_rules
from tablewatch.cli import main as cli
from tablewatch.rules.config import parse_config
from tablewatch.sim.floor import Floor
from tests.sim.floors import FIRST_TWO

COMPOSE_DIR = Path(__file__).resolve().parents[2] / "deploy" / "compose"
COMPOSE = COMPOSE_DIR / "compose.yaml"
ONE_SHOTS = {"kafka-topics", "migrate", "alerts-config", "dashboards", "verify"}
TABLEWATCH = {
    "migrate", "ingest", "worker", "api", "alerter", "alerts-config", "dashboards", "verify",
}  # fmt: skip
_VARIABLE = re.compile(r"\$\{(\w+)(?::?([-?])([^}]*))?\}")


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def services() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = compose()["services"]
    return found


def with_defaults(text: str) -> str:
    """``text`` with each ``${VAR:-default}`` as its default (``${VAR:?..}``: VAR)."""
    return _VARIABLE.sub(lambda m: m.group(3) if m.group(2) == "-" else m.group(1), text)


def test_compose_file_follows_the_compose_specification() -> None:
    tool = shutil.which("check-jsonschema")
    assert tool, "check-jsonschema is a development dependency: pip install -e '.[dev]'"
    result = subprocess.run(
        [tool, "--builtin-schema", "vendor.compose-spec", str(COMPOSE)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_whole_system_is_there() -> None:
    assert set(services()) == {
        "kafka", "kafka-topics", "clickhouse", "migrate", "ingest", "worker", "api",
        "alerter", "alerts-config", "alertmanager", "mailpit", "dashboards", "grafana",
        "verify",
    }  # fmt: skip


def test_every_image_is_pinned_by_a_tag() -> None:
    images = {}
    for name, service in services().items():
        image = with_defaults(service["image"])
        repository, _, tag = image.rpartition(":")
        assert repository and "/" not in tag, f"{name}: {image} has no tag"
        assert tag != "latest" and re.search(r"\d", tag), f"{name}: {image}"
        images[name] = image
    assert images["kafka"].startswith("apache/kafka:3.")
    assert images["clickhouse"].startswith("clickhouse/clickhouse-server:")
    assert images["grafana"].startswith("grafana/grafana:11.6.")
    assert images["alertmanager"] == "prom/alertmanager:v0.25.0"
    assert {images[s] for s in TABLEWATCH} == {"tablewatch:0.1.0"}
    plugins = services()["grafana"]["environment"]["GF_INSTALL_PLUGINS"]
    assert re.fullmatch(r"grafana-clickhouse-datasource \d+\.\d+\.\d+", plugins)


def test_long_running_services_have_health_checks_and_one_shots_run_once() -> None:
    for name, service in services().items():
        if name in ONE_SHOTS:
            assert service["restart"] == "no", name
            assert "healthcheck" not in service, name
        else:
            test = service["healthcheck"]["test"]
            assert test[0] in ("CMD", "CMD-SHELL") and len(test) >= 2, name
            assert service["restart"] == "unless-stopped", name


def test_the_tablewatch_health_checks_ask_their_own_ports() -> None:
    ports = {"ingest": 8077, "worker": 6066, "api": 8090, "alerter": 8095}
    for name, port in ports.items():
        assert services()[name]["healthcheck"]["test"] == [
            "CMD", "python", "-m", "tablewatch.healthcheck", f"http://127.0.0.1:{port}/health",
        ]  # fmt: skip


def test_services_start_in_order() -> None:
    all_services = services()
    for name, service in all_services.items():
        for needed, condition in service.get("depends_on", {}).items():
            assert needed in all_services, (name, needed)
            expected = (
                "service_completed_successfully" if needed in ONE_SHOTS else "service_healthy"
            )
            assert condition == {"condition": expected}, (name, needed)
    for writer in ("worker", "alerter", "api", "grafana"):
        assert "migrate" in all_services[writer]["depends_on"], writer
    assert "kafka-topics" in all_services["worker"]["depends_on"]
    assert "alerts-config" in all_services["alertmanager"]["depends_on"]
    assert "dashboards" in all_services["grafana"]["depends_on"]


def test_workers_scale() -> None:
    worker = services()["worker"]
    assert "container_name" not in worker and "ports" not in worker
    assert worker["command"][0] == "worker"


def test_host_ports_are_loopback_only() -> None:
    for name, service in services().items():
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), (name, port)


def test_named_volumes_are_declared() -> None:
    declared = set(compose()["volumes"])
    used = {
        volume["source"] if isinstance(volume, dict) else volume.split(":")[0]
        for service in services().values()
        for volume in service.get("volumes", [])
        if isinstance(volume, dict) or not volume.startswith(".")
    }
    assert used == declared
    # the one-shots write what Grafana and Alertmanager read
    assert "grafana-provisioning:/build" in services()["dashboards"]["volumes"]
    grafana = services()["grafana"]
    assert "grafana-provisioning:/etc/tablewatch-grafana:ro" in grafana["volumes"]
    assert grafana["environment"]["GF_PATHS_PROVISIONING"] == "/etc/tablewatch-grafana/provisioning"
    assert "alertmanager-config:/generated" in services()["alerts-config"]["volumes"]


def test_every_required_variable_is_in_env_example() -> None:
    text = COMPOSE.read_text()
    required = {m.group(1) for m in _VARIABLE.finditer(text) if m.group(2) == "?"}
    assert required == {
        "CLICKHOUSE_WRITER_PASSWORD", "CLICKHOUSE_AUDITOR_PASSWORD",
        "CLICKHOUSE_GRAFANA_PASSWORD", "CLICKHOUSE_CASEWORK_PASSWORD", "GRAFANA_ADMIN_PASSWORD",
    }  # fmt: skip
    example = dict(
        line.split("=", 1)
        for line in (COMPOSE_DIR / ".env.example").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert required <= example.keys()
    assert all(example[name] == "" for name in required)  # no default password
    assert "deploy/compose/.env" in (COMPOSE_DIR.parents[1] / ".gitignore").read_text()


def test_clickhouse_users_take_their_passwords_from_the_environment() -> None:
    root = ET.parse(COMPOSE_DIR / "clickhouse" / "users.xml").getroot()
    users = root.find("users")
    assert users is not None
    env = services()["clickhouse"]["environment"]
    grants: dict[str, list[str]] = {}
    for user in users:
        password = user.find("password")
        assert password is not None and password.text is None, user.tag
        assert password.get("from_env") in env, user.tag
        grants[user.tag] = [q.text or "" for q in user.iter("query")]
    assert set(grants) == {
        "tablewatch_writer", "tablewatch_auditor", "tablewatch_grafana", "tablewatch_casework",
    }  # fmt: skip
    assert grants["tablewatch_casework"] == [
        "GRANT SELECT ON tablewatch.*",
        "GRANT INSERT ON tablewatch.case_events",
        "REVOKE SELECT ON tablewatch.access_log",
        "REVOKE SELECT ON tablewatch.access_log_v",
    ]
    casework_profile = users.find("tablewatch_casework/profile")
    assert casework_profile is not None and casework_profile.text == "tablewatch_writers"
    for reader in ("tablewatch_auditor", "tablewatch_grafana"):
        assert grants[reader] == [
            "GRANT SELECT ON tablewatch.*",
            "REVOKE SELECT ON tablewatch.access_log",
            "REVOKE SELECT ON tablewatch.access_log_v",
        ]
        profile = users.find(f"{reader}/profile")
        assert profile is not None and profile.text == "tablewatch_readers"
    readonly = root.find("profiles/tablewatch_readers/readonly")
    assert readonly is not None and readonly.text == "2"
    # the DSNs of the services name these users
    dsns = [with_defaults(str(s.get("environment", {}))) for s in services().values()]
    assert any("tablewatch_writer:" in d for d in dsns)
    assert "tablewatch_auditor:" in with_defaults(str(services()["api"]["environment"]))


def test_the_api_runs_the_casework_desk_as_the_casework_user() -> None:
    api = services()["api"]
    command = [str(a) for a in api["command"]]
    for option, value in (
        ("--access-file", "/etc/tablewatch/access.yaml"),
        ("--rules", "/etc/tablewatch/alerts.yaml"),
        ("--alerter", "http://alerter:8095"),
    ):
        assert command[command.index(option) + 1] == value, option
    assert "--cases" not in command  # this process's desk decides
    env = {k: with_defaults(str(v)) for k, v in api["environment"].items()}
    assert env["TABLEWATCH_CASES_DSN"].startswith(
        "http://tablewatch_casework:CLICKHOUSE_CASEWORK_PASSWORD@clickhouse:8123/"
    )
    assert env["TABLEWATCH_DSN"].startswith("http://tablewatch_auditor:")
    assert api.get("deploy", {}).get("replicas", 1) == 1 and "scale" not in api  # one desk
    mounts = [str(v) for v in compose()["x-tablewatch"]["volumes"]]
    assert "./config:/etc/tablewatch:ro" in mounts


def test_the_demo_floor_configuration_is_the_simulators() -> None:
    shipped = yaml.safe_load((COMPOSE_DIR / "config" / "tables.yaml").read_text())
    assert shipped == Floor(tables=12, rounds=12, seed=7, games=FIRST_TWO).config
    assert len(parse_config(shipped)) == 12


def test_the_alert_rules_send_mail_to_the_catcher() -> None:
    rules = load_rules(COMPOSE_DIR / "config" / "alerts.yaml")
    config = alertmanager_config(rules, "http://alerter:8095")
    mails = [c for r in config["receivers"] for c in r.get("email_configs", [])]
    assert mails and all(c["smarthost"] == "mailpit:1025" for c in mails)


@pytest.mark.parametrize("name", sorted(TABLEWATCH))
def test_tablewatch_services_run_real_commands(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each TableWatch service's command line parses as the CLI's (options, types), with
    the service's environment (the options' variables) set as Compose sets it."""
    for variable, value in services()[name].get("environment", {}).items():
        monkeypatch.setenv(variable, with_defaults(str(value)))
    args = [str(a) for a in services()[name]["command"]]
    context = click.Context(cli)
    group: click.Command = cli
    while isinstance(group, click.Group):
        sub = group.get_command(context, args[0])
        assert sub is not None, f"{name}: no command {args[0]!r}"
        group, args = sub, args[1:]
        context = click.Context(group, parent=context)
    group.make_context(name, args, parent=context)  # raises on an unknown or bad option


def test_grafana_reads_what_the_dashboards_build_writes() -> None:
    from tablewatch.dashboards.provisioning import DASHBOARDS_PATH, PASSWORD_ENV

    grafana, build = services()["grafana"], services()["dashboards"]
    mounts = [v for v in grafana["volumes"] if isinstance(v, dict)]
    assert [(m["source"], m["target"], m["volume"]["subpath"]) for m in mounts] == [
        ("grafana-provisioning", DASHBOARDS_PATH, "dashboards")
    ]
    assert PASSWORD_ENV in grafana["environment"]
    args = build["command"]
    assert args[args.index("--database") + 1] == "tablewatch"
    assert args[args.index("--host") + 1] == "clickhouse"


def parsed_command(name: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The parameters the CLI takes from service ``name``'s command and environment."""
    for variable, value in services()[name].get("environment", {}).items():
        monkeypatch.setenv(variable, with_defaults(str(value)))
    args = [str(a) for a in services()[name]["command"]]
    command = cli.get_command(click.Context(cli), args[0])
    assert command is not None
    params: dict[str, Any] = command.make_context(name, args[1:]).params
    return params


def mounts(name: str) -> dict[str, str]:
    """Mount point -> source of service ``name``'s short-syntax volumes."""
    found = {}
    for volume in services()[name].get("volumes", []):
        if isinstance(volume, str):
            source, target, *_ = volume.split(":")
            found[target] = source
    return found


def test_the_workers_sign_with_the_checkpoint_key_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    worker = services()["worker"]
    params = parsed_command("worker", monkeypatch)
    (secret,) = worker["secrets"]
    assert params["checkpoint_key"] == Path("/run/secrets") / secret
    assert worker["environment"]["TABLEWATCH_CHECKPOINT_KEY"] == f"/run/secrets/{secret}"
    source = with_defaults(compose()["secrets"][secret]["file"])
    assert (COMPOSE_DIR / source).resolve() == COMPOSE_DIR / "secrets" / "checkpoint.key"
    # the operator's key and its public half are never committed (nor built into the image:
    # .dockerignore lets in pyproject.toml, README.md and tablewatch/ alone)
    for name in ("checkpoint.key", "checkpoint.key.pub", "other.key"):
        ignored = subprocess.run(
            ["git", "check-ignore", "-q", f"deploy/compose/secrets/{name}"],
            cwd=COMPOSE_DIR.parents[1], timeout=30,
        )  # fmt: skip
        assert ignored.returncode == 0, f"deploy/compose/secrets/{name} is not git-ignored"
    assert (COMPOSE_DIR / "secrets" / "README.md").is_file()


def test_the_workers_append_the_outside_record_to_a_volume(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    params = parsed_command("worker", monkeypatch)
    record: Path = params["manifest_file"]
    assert record is not None and record.suffix == ".jsonl"
    volume = mounts("worker")[str(record.parent)]
    assert volume in compose()["volumes"]  # a named volume: kept by docker compose down
    # a fresh named volume takes the owner of the image's directory: the image's user
    dockerfile = (COMPOSE_DIR.parents[1] / "Dockerfile").read_text()
    (made,) = re.findall(r"mkdir -p (/var/lib/tablewatch[^\n&\\]*)", dockerfile)
    (owned,) = re.findall(r"chown tablewatch:tablewatch ([^\n&\\]+)", dockerfile)
    assert str(record.parent) in made.split() and str(record.parent) in owned.split()
    # verify reads the same file, read-only, with the auditor's read-only DSN
    verify = parsed_command("verify", monkeypatch)
    assert verify["manifest_files"] == (record,)
    assert f"{volume}:{record.parent}:ro" in services()["verify"]["volumes"]
    assert verify["public_key"] is not None
    assert "tablewatch_auditor:" in with_defaults(str(services()["verify"]["environment"]))
    assert services()["verify"]["profiles"] == ["verify"]  # run on demand, not by up


def test_the_checkpoints_topic_is_created_and_kept() -> None:
    from tablewatch.topics import CHECKPOINTS

    script = "\n".join(services()["kafka-topics"]["command"])
    creates = [line for line in script.splitlines() if "--create" in line or "--topic" in line]
    assert any(CHECKPOINTS in line for line in creates), script
    # the outside record outlives the broker's default retention (a week)
    assert re.search(rf"{CHECKPOINTS}.*--config retention\.ms=-1", script, re.DOTALL), script
