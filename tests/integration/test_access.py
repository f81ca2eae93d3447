"""Access control of a real worker's web views: tokens and roles, the access log in the
store, and the binding rule (no access file: loopback only)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.services import free_port
from tests.integration.pipeline import new_deployment, simulated_floor

pytestmark = pytest.mark.integration

Reply = tuple[int, dict[str, Any], dict[str, str]]


def call(port: int, path: str, token: str | None = None, timeout: float = 30) -> Reply:
    """Status, JSON body and headers of ``GET path``, with ``token`` as bearer."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return reply.status, json.loads(reply.read()), dict(reply.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), dict(error.headers)


def query(sql: str) -> str:
    return "/query?" + urllib.parse.urlencode({"sql": sql})


def test_tokens_roles_and_the_access_log(kafka_bootstrap: str, tmp_path: Path) -> None:
    floor = simulated_floor(tmp_path, tables=1, rounds=3, seed=7)
    now = datetime.now(UTC)
    tokens = {name: new_token() for name in ("alice", "sam", "ann", "old")}
    roles = {"alice": Role.AUDITOR, "sam": Role.SURVEILLANCE, "ann": Role.ADMIN}
    entries = [AccessEntry(n, roles[n], hash_token(tokens[n]), now) for n in roles]
    entries.append(
        AccessEntry("old", Role.AUDITOR, hash_token(tokens["old"]), now - timedelta(days=30),
                    now - timedelta(days=1))
    )  # fmt: skip
    access_file = tmp_path / "access.yaml"
    save(access_file, AccessFile(tuple(entries)))
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    # another host than loopback is served once there is an access file
    args = ("--access-file", str(access_file), "--web-host", "0.0.0.0")
    with deployment.worker(floor.config, extra_args=args):
        port = deployment.web_port
        assert call(port, "/health")[0] == 200  # open, for probes

        sql = "SELECT count() FROM rounds_v"
        status, body, headers = call(port, query(sql))
        assert status == 401, body
        assert headers["WWW-Authenticate"] == 'Bearer realm="tablewatch"'
        status, body, headers = call(port, query(sql), token=new_token())
        assert status == 401 and "unknown token" in body["error"]
        assert 'error="invalid_token"' in headers["WWW-Authenticate"]
        status, body, headers = call(port, query(sql), token=tokens["old"])
        assert status == 401 and "expired" in body["error"], body
        assert "Bearer" in headers["WWW-Authenticate"]
        assert call(port, "/metrics")[0] == 401

        status, body, _ = call(port, query(sql), token=tokens["alice"])
        assert status == 200 and body["rows"] == [[0]], body
        status, body, _ = call(port, query(sql), token=tokens["sam"])
        assert status == 403, body
        assert "needs the role auditor or admin" in body["error"]
        assert body["needs_role"] == ["auditor", "admin"]
        status, body, _ = call(port, "/metrics", token=tokens["sam"])
        assert status == 200 and body["access"]["enabled"] is True, body
        assert call(port, "/metrics", token=tokens["alice"])[0] == 200

        # the access log: nobody but an admin reads it
        status, body, _ = call(port, query("SELECT * FROM access_log_v"), token=tokens["alice"])
        assert status == 400 and "not readable" in body["error"], body
        refused = "SELECT * FROM system.tables"
        assert call(port, query(refused), token=tokens["alice"])[0] == 400

        wanted = {
            ("alice", "auditor", sql, "ok", 200, 1),
            ("", "", sql, "unauthenticated", 401, 0),
            ("sam", "surveillance", sql, "forbidden", 403, 0),
            ("sam", "surveillance", "GET /metrics", "ok", 200, 0),
            ("alice", "auditor", refused, "refused", 400, 0),
        }
        log_sql = (
            "SELECT principal, role, request, outcome, status, rows_returned, endpoint, client "
            "FROM access_log_v ORDER BY ts"
        )
        deadline = time.monotonic() + 30
        while True:
            status, body, _ = call(port, query(log_sql), token=tokens["ann"])
            assert status == 200, body
            rows = body["rows"]
            if wanted <= {tuple(row[:6]) for row in rows} or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert wanted <= {tuple(row[:6]) for row in rows}, rows
        assert {row[6] for row in rows} <= {"/query", "/metrics"}
        assert {row[7] for row in rows} == {"127.0.0.1"}
        unauthenticated = [row for row in rows if row[3] == "unauthenticated"]
        assert len(unauthenticated) == 4  # none, unknown, expired (queries), /metrics
        assert not any(token in json.dumps(rows) for token in tokens.values())


def _worker_exit(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    config = simulated_floor(tmp_path, tables=1, rounds=1, seed=1).config
    return subprocess.run(
        [sys.executable, "-m", "tablewatch.cli", "worker", "--config", str(config),
         "--dsn", f"chdb:///{tmp_path / 'chdb'}", "--data-dir", str(tmp_path / "w"), *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_no_other_host_than_loopback_without_an_access_file(tmp_path: Path) -> None:
    done = _worker_exit(tmp_path, "--web-host", "0.0.0.0")
    assert done.returncode == 2, done
    assert "refusing to serve on 0.0.0.0 without access control" in done.stderr
    assert "--access-file" in done.stderr
    assert not (tmp_path / "chdb").exists()  # refused before the store was opened


def test_a_bad_access_file_stops_the_worker_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "access.yaml"
    bad.write_text("version: 1\nprincipals:\n- name: alice\n  role: auditor\n  token: tw_x\n")
    done = _worker_exit(tmp_path, "--access-file", str(bad), "--web-host", "0.0.0.0")
    assert done.returncode == 2, done
    assert f"{bad}:5: unknown key 'token' in a principal" in done.stderr


def test_without_an_access_file_only_loopback_is_served(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    floor = simulated_floor(tmp_path, tables=1, rounds=1, seed=2)
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    with deployment.worker(floor.config):
        port = deployment.web_port
        assert call(port, query("SELECT 1"))[0] == 200  # open, as before
        listening = _listening(port)
        assert listening == {"127.0.0.1"}, listening
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if "access control is off" in deployment.log_tail():
                break
            time.sleep(0.3)
        log = (tmp_path / "worker.log").read_text(errors="replace")
        assert log.count("access control is off") == 1, log[-2000:]


def _listening(port: int) -> set[str]:
    """The local addresses listening on TCP ``port`` (IPv4, from /proc/net/tcp)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if state == "0A" and int(hex_port, 16) == port:  # LISTEN
            found.add(".".join(str(int(address[i : i + 2], 16)) for i in (6, 4, 2, 0)))
    return found
