"""deploy/k8s: the kustomize base and overlays rendered (kustomize), every manifest
validated against the Kubernetes API's schemas (kubernetes-validate, strict) for a current
version, and the rules that matter checked: probes on /health, resources, the workers'
disruption budget, passwords only from Secrets, pinned images, the same configuration as
the Compose stack."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import click
import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

from tablewatch.cli import main as cli
from tablewatch.integrity.keys import load_public_keys, load_signer
from tablewatch.topics import CHECKPOINTS

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
RENDERS = ("base", "overlays/production", "overlays/production/kafka", "overlays/in-cluster-test")
VERSIONS = ("1.33.0", kubernetes_validate.latest_version())
OPERATOR_KINDS = {
    "kafka.strimzi.io/v1beta2": {"Kafka", "KafkaNodePool", "KafkaTopic", "KafkaUser"},
    "clickhouse.altinity.com/v1": {"ClickHouseInstallation"},
    "clickhouse-keeper.altinity.com/v1": {"ClickHouseKeeperInstallation"},
}
PORTS = {"ingest": 8077, "worker": 6066, "api": 8090, "cases": 8090, "alerter": 8095}


def kustomize() -> list[str]:
    """The kustomize to render with: setup's build, one on PATH, or kubectl's."""
    built = ROOT / ".cache" / "bin" / "kustomize"
    if built.exists():
        return [str(built), "build"]
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    raise AssertionError("no kustomize: scripts/setup.sh builds one into .cache/bin")


@cache
def rendered(where: str) -> tuple[dict[str, Any], ...]:
    result = subprocess.run(
        [*kustomize(), str(K8S / where)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return tuple(d for d in yaml.safe_load_all(result.stdout) if d)


def objects(where: str, kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in rendered(where) if o["kind"] == kind}


def containers(workload: dict[str, Any]) -> list[dict[str, Any]]:
    spec = workload["spec"]["template"]["spec"]
    return [*spec.get("initContainers", []), *spec["containers"]]


@pytest.mark.parametrize("where", RENDERS)
def test_every_manifest_is_valid_for_current_kubernetes(where: str) -> None:
    docs = rendered(where)
    assert docs
    for doc in docs:
        if doc["apiVersion"] in OPERATOR_KINDS:  # the operators' resources: no schema here
            assert doc["kind"] in OPERATOR_KINDS[doc["apiVersion"]], doc["kind"]
            assert doc["spec"], doc["metadata"]["name"]
            continue
        for version in VERSIONS:
            kubernetes_validate.validate(doc, version, strict=True)


@pytest.mark.parametrize("where", ["base", "overlays/production", "overlays/in-cluster-test"])
def test_the_same_services_as_the_compose_stack(where: str) -> None:
    deployments = objects(where, "Deployment")
    assert {
        "tablewatch-ingest", "tablewatch-worker", "tablewatch-api", "tablewatch-alerter",
        "alertmanager", "grafana",
    } <= set(deployments)  # fmt: skip
    assert set(objects(where, "Job")) == {"tablewatch-migrate"}
    init = {c["name"] for c in containers(deployments["grafana"])}
    assert "dashboards" in init
    assert "alerts-config" in {c["name"] for c in containers(deployments["alertmanager"])}


@pytest.mark.parametrize("where", ["base", "overlays/production", "overlays/in-cluster-test"])
def test_probes_resources_and_users(where: str) -> None:
    for name, deployment in objects(where, "Deployment").items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        for container in containers(deployment):
            resources = container["resources"]
            assert {"cpu", "memory"} <= resources["requests"].keys(), (name, container["name"])
            assert "memory" in resources["limits"], (name, container["name"])
            assert container["securityContext"]["allowPrivilegeEscalation"] is False
            assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
        main = pod["containers"][0]
        assert "readinessProbe" in main and "livenessProbe" in main, name
        short = name.removeprefix("tablewatch-")
        if short in PORTS:
            for probe in ("readinessProbe", "livenessProbe"):
                assert main[probe]["httpGet"]["path"] == "/health", (name, probe)
            port = {p["name"]: p["containerPort"] for p in main["ports"]}
            assert port[main["readinessProbe"]["httpGet"]["port"]] == PORTS[short]


@pytest.mark.parametrize("where", ["base", "overlays/production", "overlays/in-cluster-test"])
def test_one_casework_desk_and_the_public_api_forwards_to_it(where: str) -> None:
    deployments = objects(where, "Deployment")
    desk = deployments["tablewatch-cases"]
    assert desk["spec"]["replicas"] == 1 and desk["spec"]["strategy"] == {"type": "Recreate"}
    service = objects(where, "Service")["tablewatch-cases"]
    assert service["spec"]["selector"] == desk["spec"]["selector"]["matchLabels"]
    assert service["spec"]["ports"][0]["port"] == 8090
    [desk_container] = desk["spec"]["template"]["spec"]["containers"]
    env = {v["name"]: v["valueFrom"]["secretKeyRef"] for v in desk_container["env"]}
    assert env["TABLEWATCH_CASES_DSN"] == {"name": "tablewatch-store", "key": "casework-dsn"}
    assert "--cases" not in desk_container["args"]
    [api] = deployments["tablewatch-api"]["spec"]["template"]["spec"]["containers"]
    assert deployments["tablewatch-api"]["spec"]["replicas"] >= 2
    assert "TABLEWATCH_CASES_DSN" not in {v["name"] for v in api["env"]}
    for container, expected in ((api, True), (desk_container, False)):
        args = container["args"]
        wanted = {
            "--access-file": "/etc/tablewatch-access/access.yaml",
            "--rules": "/etc/tablewatch/alerts.yaml",
        }
        if expected:
            wanted |= {"--alerter": "http://tablewatch-alerter:8095",
                       "--cases": "http://tablewatch-cases:8090"}  # fmt: skip
        for option, value in wanted.items():
            assert args[args.index(option) + 1] == value, (container["name"], option)
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        assert mounts["/etc/tablewatch"] == "config"
        assert mounts["/etc/tablewatch-access"] == "access"


def test_the_test_cluster_has_the_casework_user() -> None:
    chi = objects("overlays/in-cluster-test", "ClickHouseInstallation")["tablewatch"]
    users = chi["spec"]["configuration"]["users"]
    assert users["tablewatch_casework/grants/query"] == [
        "GRANT SELECT ON tablewatch.*",
        "GRANT INSERT ON tablewatch.case_events",
        "REVOKE SELECT ON tablewatch.access_log",
        "REVOKE SELECT ON tablewatch.access_log_v",
    ]
    secret_ref = users["tablewatch_casework/k8s_secret_password"]
    assert secret_ref == "tablewatch-store/casework-password"
    [store] = [s for n, s in objects("overlays/in-cluster-test", "Secret").items()
               if n.startswith("tablewatch-store")]  # fmt: skip
    data = {k: base64.b64decode(v).decode() for k, v in store["data"].items()}
    password = data["casework-password"]
    assert data["casework-dsn"].startswith(f"http://tablewatch_casework:{password}@")


def test_workers_have_a_disruption_budget() -> None:
    for where in ("base", "overlays/production", "overlays/in-cluster-test"):
        budget = objects(where, "PodDisruptionBudget")["tablewatch-worker"]
        assert budget["spec"]["maxUnavailable"] == 1
        worker = objects(where, "Deployment")["tablewatch-worker"]
        labels = worker["spec"]["template"]["metadata"]["labels"]
        assert budget["spec"]["selector"]["matchLabels"].items() <= labels.items()


def env_of(where: str) -> dict[str, str]:
    maps = objects(where, "ConfigMap")
    (name,) = [n for n in maps if n.startswith("tablewatch-env")]
    data: dict[str, str] = maps[name]["data"]
    return data


def test_no_more_workers_than_partitions_and_topics_that_match() -> None:
    for where in ("base", "overlays/production", "overlays/in-cluster-test"):
        partitions = int(env_of(where)["TABLEWATCH_PARTITIONS"])
        assert objects(where, "Deployment")["tablewatch-worker"]["spec"]["replicas"] <= partitions
    for where, env in [("overlays/production/kafka", "overlays/production"),
                       ("overlays/in-cluster-test", "overlays/in-cluster-test")]:  # fmt: skip
        topics = objects(where, "KafkaTopic")
        assert set(topics) == {
            "table-events", "table-events-dlq", "rounds", "findings", CHECKPOINTS,
        }  # fmt: skip
        assert topics["table-events"]["spec"]["partitions"] == int(
            env_of(env)["TABLEWATCH_PARTITIONS"]
        )


def test_passwords_come_from_secrets_only() -> None:
    for where in ("base", "overlays/production"):
        assert not objects(where, "Secret"), f"{where} must not hold a Secret"
    for where in ("base", "overlays/production", "overlays/in-cluster-test"):
        for name, deployment in objects(where, "Deployment").items():
            for container in containers(deployment):
                for variable in container.get("env", []):
                    if re.search(r"PASSWORD|DSN|TOKEN", variable["name"]):
                        assert "secretKeyRef" in variable["valueFrom"], (name, variable)
        for value in env_of(where).values():
            assert "@" not in value and "password" not in value.lower()


def test_images_are_pinned() -> None:
    for where in ("base", "overlays/production", "overlays/in-cluster-test"):
        for deployment in [*objects(where, "Deployment").values(), *objects(where, "Job").values()]:
            for container in containers(deployment):
                image = container["image"]
                assert re.fullmatch(r"[\w./-]+:[\w.-]*\d[\w.-]*", image), image
                assert not image.endswith(":latest")


def test_the_configuration_is_the_compose_stacks() -> None:
    for name in ("tables.yaml", "alerts.yaml"):
        ours = (K8S / "base" / "config" / name).read_text()
        assert ours == (ROOT / "deploy" / "compose" / "config" / name).read_text(), name


def test_the_cluster_overlays_migrate_on_the_cluster_they_name() -> None:
    for where in ("overlays/production", "overlays/in-cluster-test"):
        job = objects(where, "Job")["tablewatch-migrate"]
        args = job["spec"]["template"]["spec"]["containers"][0]["args"]
        assert args == ["db", "migrate", "--cluster", "tablewatch"]
    chi = objects("overlays/in-cluster-test", "ClickHouseInstallation")["tablewatch"]
    clusters = chi["spec"]["configuration"]["clusters"]
    assert [c["name"] for c in clusters] == ["tablewatch"]
    assert clusters[0]["layout"]["shardsCount"] >= 2


def tablewatch_commands() -> list[tuple[str, list[str]]]:
    found = {}
    for where in ("base", "overlays/production"):
        for workload in [*objects(where, "Deployment").values(), *objects(where, "Job").values()]:
            for container in containers(workload):
                if container["image"].startswith("tablewatch:"):
                    found[f"{where}:{container['name']}"] = [str(a) for a in container["args"]]
    return sorted(found.items())


@pytest.mark.parametrize(("name", "args"), tablewatch_commands())
def test_tablewatch_containers_run_real_commands(name: str, args: list[str]) -> None:
    context = click.Context(cli)
    group: click.Command = cli
    while isinstance(group, click.Group):
        sub = group.get_command(context, args[0])
        assert sub is not None, f"{name}: no command {args[0]!r}"
        group, args = sub, args[1:]
        context = click.Context(group, parent=context)
    group.make_context(name, args, parent=context)


def test_grafana_reads_what_the_dashboards_build_writes() -> None:
    from tablewatch.dashboards.provisioning import DASHBOARDS_PATH, PASSWORD_ENV

    grafana = objects("base", "Deployment")["grafana"]["spec"]["template"]["spec"]
    main = grafana["containers"][0]
    mounts = {m["mountPath"]: m for m in main["volumeMounts"]}
    assert mounts[DASHBOARDS_PATH]["subPath"] == "dashboards"
    env = {e["name"]: e for e in main["env"]}
    assert env["GF_PATHS_PROVISIONING"]["value"] == "/etc/tablewatch-grafana/provisioning"
    assert mounts["/etc/tablewatch-grafana"]["name"] == mounts[DASHBOARDS_PATH]["name"]
    assert "secretKeyRef" in env[PASSWORD_ENV]["valueFrom"]
    (build,) = grafana["initContainers"]
    assert build["args"][:4] == ["dashboards", "build", "--out", "/build"]


def worker_params(where: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The parameters the CLI takes from the worker container's args and plain env values
    (a ``$(VAR)`` of the args left as written: Kubernetes expands it)."""
    worker = objects(where, "Deployment")["tablewatch-worker"]
    (container,) = worker["spec"]["template"]["spec"]["containers"]
    for variable in container.get("env", []):
        if "value" in variable:
            monkeypatch.setenv(variable["name"], variable["value"])
    command = cli.get_command(click.Context(cli), container["args"][0])
    assert command is not None
    params: dict[str, Any] = command.make_context("worker", container["args"][1:]).params
    return params


def mounted(where: str, path: Path) -> dict[str, Any]:
    """The worker pod's volume mounted where ``path`` is (its directory)."""
    spec = objects(where, "Deployment")["tablewatch-worker"]["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    found: dict[str, Any] = volumes[mounts[str(path.parent)]]
    return found


@pytest.mark.parametrize("where", ["base", "overlays/production", "overlays/in-cluster-test"])
def test_the_workers_sign_with_the_checkpoint_key_secret(
    where: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key: Path = worker_params(where, monkeypatch)["checkpoint_key"]
    assert key is not None, f"{where}: the worker signs nothing"
    secret = mounted(where, key)["secret"]
    assert secret["secretName"] == "tablewatch-checkpoint-key"
    assert secret["defaultMode"] & 0o007 == 0  # not for every user of the pod
    if where == "overlays/in-cluster-test":  # a test key, like its test tokens
        data = objects(where, "Secret")["tablewatch-checkpoint-key"]["data"]
        (tmp_path / key.name).write_bytes(base64.b64decode(data[key.name]))
        signer = load_signer(tmp_path / key.name)
        public = load_public_keys(K8S / where / f"{key.name}.pub")
        assert public == {signer.key_id: signer.public_key}


@pytest.mark.parametrize("where", ["base", "overlays/production", "overlays/in-cluster-test"])
def test_the_workers_append_the_outside_record_to_a_claim(
    where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    record: Path = worker_params(where, monkeypatch)["manifest_file"]
    assert record is not None, f"{where}: no outside record"
    # each pod a file of its own (Kubernetes puts the pod's name for $(POD_NAME))
    assert record.name == "$(POD_NAME).jsonl"
    worker = objects(where, "Deployment")["tablewatch-worker"]
    (container,) = worker["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["POD_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    claim = mounted(where, record)["persistentVolumeClaim"]["claimName"]
    spec = objects(where, "PersistentVolumeClaim")[claim]["spec"]
    if where == "overlays/in-cluster-test":  # a test cluster's class: the workers on one node
        assert spec["accessModes"] == ["ReadWriteOnce"]
        (term,) = worker["spec"]["template"]["spec"]["affinity"]["podAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]
        assert term["topologyKey"] == "kubernetes.io/hostname"
        assert term["labelSelector"]["matchLabels"].items() <= (
            worker["spec"]["template"]["metadata"]["labels"].items()
        )
    else:  # every worker's node writes to it
        assert spec["accessModes"] == ["ReadWriteMany"]
    if where == "overlays/production":  # the site's write-once class, named
        assert spec["storageClassName"]


def test_the_worker_may_write_the_checkpoints_topic() -> None:
    topic = objects("overlays/production/kafka", "KafkaTopic")[CHECKPOINTS]
    assert topic["spec"]["config"]["retention.ms"] == -1  # the outside record is kept
    assert topic["spec"]["partitions"] == 1
    test_topic = objects("overlays/in-cluster-test", "KafkaTopic")[CHECKPOINTS]
    assert test_topic["spec"]["config"]["retention.ms"] == -1
    (user,) = objects("overlays/production/kafka", "KafkaUser").values()
    allowed = set()
    for acl in user["spec"]["authorization"]["acls"]:
        resource = acl["resource"]
        if resource["type"] != "topic":
            continue
        prefix = resource["patternType"] == "prefix"
        if resource["name"] == CHECKPOINTS or (prefix and CHECKPOINTS.startswith(resource["name"])):
            allowed |= set(acl["operations"])
    assert {"Describe", "Read", "Write"} <= allowed
