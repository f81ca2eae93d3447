"""The Compose stack for real (pytest-docker): up, a simulated floor through the ingest
endpoint, the findings in the ClickHouse server equal to the simulator's truth, and one
dashboard query answered through Grafana's API.

Needs a Docker engine that can pull images, so it is outside the default suite (the
``docker`` marker): ``python -m pytest -m docker tests/deploy/test_stack.py`` (see
deploy/compose/README.md). ``tests/deploy/test_stack_collects.py`` checks, in the
default suite, that it is collected.
"""

from __future__ import annotations

import base64
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablewatch.integrity import keys
from tablewatch.rules.decode import encode_event
from tablewatch.sim.floor import Floor
from tests.sim.floors import FIRST_TWO

pytestmark = pytest.mark.docker

COMPOSE = Path(__file__).resolve().parents[2] / "deploy" / "compose" / "compose.yaml"
# the stack's own passwords (the variables compose.yaml requires), for this run only
PASSWORDS = {
    "CLICKHOUSE_WRITER_PASSWORD": "stackwriter1",
    "CLICKHOUSE_AUDITOR_PASSWORD": "stackauditor1",
    "CLICKHOUSE_GRAFANA_PASSWORD": "stackgrafana1",
    "CLICKHOUSE_CASEWORK_PASSWORD": "stackcasework1",
    "GRAFANA_ADMIN_PASSWORD": "stackadmin1",
}
INGEST, CLICKHOUSE, GRAFANA = (
    "http://127.0.0.1:8077",
    "http://127.0.0.1:8123",
    "http://127.0.0.1:3000",
)
TABLES, ROUNDS, SEED = 12, 240, 7  # the tables of deploy/compose/config/tables.yaml


@pytest.fixture(scope="session")
def docker_compose_file() -> str:
    return str(COMPOSE)


@pytest.fixture(scope="session")
def docker_compose_project_name() -> str:
    return f"tablewatch-stack-{os.getpid()}"


@pytest.fixture(scope="session")
def docker_setup(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    os.environ.update(PASSWORDS)  # read by docker compose, which pytest-docker runs
    # the workers' checkpoint key, this run's own (the secret's file; readable by the
    # image's user, 10001, as the bind-mounted secret keeps the host's owner and mode)
    key = tmp_path_factory.mktemp("secrets") / "checkpoint.key"
    keys.generate(key)
    key.chmod(0o644)
    os.environ["TABLEWATCH_CHECKPOINT_KEY_FILE"] = str(key)
    return ["up --build -d --scale worker=2"]


@pytest.fixture(scope="session")
def docker_cleanup() -> list[str]:
    return ["down -v"]


def request(url: str, body: bytes | None = None, auth: tuple[str, str] | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if auth:
        headers["Authorization"] = "Basic " + base64.b64encode(":".join(auth).encode()).decode()
    req = urllib.request.Request(url, data=body, headers=headers)
    with urllib.request.urlopen(req, timeout=30) as reply:
        text = reply.read()
    return json.loads(text) if text.strip() else None


def healthy(url: str) -> Callable[[], bool]:
    def check() -> bool:
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return True
        except (OSError, urllib.error.HTTPError):
            return False

    return check


def clickhouse(sql: str) -> list[dict[str, Any]]:
    """Rows of ``sql`` on the server, as the read-only auditor user."""
    url = f"{CLICKHOUSE}/?" + urllib.parse.urlencode(
        {"query": sql + " FORMAT JSONEachRow", "database": "tablewatch"}
    )
    auth = ("tablewatch_auditor", PASSWORDS["CLICKHOUSE_AUDITOR_PASSWORD"])
    headers = {"Authorization": "Basic " + base64.b64encode(":".join(auth).encode()).decode()}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
        return [json.loads(line) for line in r.read().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def stack(docker_services: Any) -> Iterator[None]:
    for url in (f"{INGEST}/health", f"{GRAFANA}/api/health", f"{CLICKHOUSE}/ping"):
        docker_services.wait_until_responsive(check=healthy(url), timeout=600, pause=2)
    yield


def test_a_floor_through_the_stack(stack: None) -> None:
    floor = Floor(
        tables=TABLES,
        rounds=ROUNDS,
        seed=SEED,
        error_rate=0.15,
        jackpot_rate=0.05,
        games=FIRST_TWO,
    )
    events = [json.loads(encode_event(e)) for e in floor.events()]
    truth = {(t.table_id, t.round_id or "", t.check) for t in floor.truth()}
    for start in range(0, len(events), 500):
        batch = events[start : start + 500]
        reply = request(f"{INGEST}/events", json.dumps(batch).encode())
        assert reply["accepted"] == len(batch), reply
    deadline = time.monotonic() + 300
    rounds = 0
    while time.monotonic() < deadline:
        rounds = int(clickhouse("SELECT count() AS n FROM rounds_v")[0]["n"])
        if rounds >= ROUNDS:
            break
        time.sleep(2)
    assert rounds == ROUNDS
    time.sleep(2)  # the findings of the last flush
    found = {
        (r["table_id"], r["round_id"], r["check"])
        for r in clickhouse("SELECT table_id, round_id, check FROM findings_v")
    }
    assert found == truth
    stored = clickhouse("SELECT count() AS n, uniqExact(table_id, event_id) AS u FROM raw_events_v")
    assert int(stored[0]["n"]) == int(stored[0]["u"]) == len(events)

    # one dashboard query, through Grafana's API, on its provisioned ClickHouse datasource
    admin = ("admin", PASSWORDS["GRAFANA_ADMIN_PASSWORD"])
    sources = [
        s for s in request(f"{GRAFANA}/api/datasources", auth=admin)
        if s["type"] == "grafana-clickhouse-datasource"
    ]  # fmt: skip
    assert sources, "no ClickHouse datasource provisioned"
    dashboards = request(f"{GRAFANA}/api/search?type=dash-db", auth=admin)
    assert dashboards, "no dashboard provisioned"
    floor_board = [d for d in dashboards if "floor" in d["title"].lower()] or dashboards
    board = request(f"{GRAFANA}/api/dashboards/uid/{floor_board[0]['uid']}", auth=admin)
    targets = [
        t for p in board["dashboard"].get("panels", []) for t in p.get("targets", [])
        if t.get("rawSql")
    ]  # fmt: skip
    assert targets, f"dashboard {floor_board[0]['title']} has no SQL panel"
    # the dashboard's variables set to "All", as Grafana's page sends them (its
    # $__conditionalAll(..., $var) then reads "everything"); the plugin expands the rest
    sql = re.sub(r"\$\{(\w+):singlequote\}", "'$__all'", targets[0]["rawSql"])
    sql = re.sub(r"\$\{?(?!__)(\w+)\}?", "$__all", sql)
    query = {
        "queries": [
            {**targets[0], "rawSql": sql, "refId": "A", "datasource": {"uid": sources[0]["uid"]}}
        ],
        "from": "now-7d",
        "to": "now",
    }
    answer = request(f"{GRAFANA}/api/ds/query", json.dumps(query).encode(), auth=admin)
    result = answer["results"]["A"]
    assert "error" not in result, result
    assert result["frames"], result
