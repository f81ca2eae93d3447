"""``tablewatch access add | list | revoke``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner, Result

from tablewatch.access.access_file import format_time, load
from tablewatch.access.authenticate import TokenAuthenticator
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token
from tablewatch.cli import main


def tablewatch(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="tablewatch", env=env)


def test_add_prints_the_token_once_and_keeps_its_hash(tmp_path: Path) -> None:
    path = tmp_path / "access.yaml"
    added = tablewatch("access", "add", "--file", str(path), "--name", "alice", "--role", "auditor")
    assert added.exit_code == 0, added.output
    token = added.stdout.strip()  # alone on stdout: TOKEN=$(tablewatch access add ...)
    assert token.startswith("tw_") and "\n" not in token
    assert "alice (auditor) added" in added.stderr and "no expiry" in added.stderr
    assert token not in path.read_text()
    (entry,) = load(path).entries
    assert (entry.name, entry.role, entry.token_hash) == ("alice", Role.AUDITOR, hash_token(token))
    assert entry.expires is None
    assert abs(entry.created - datetime.now(UTC)) < timedelta(minutes=1)
    assert TokenAuthenticator(load(path)).check(token).name == "alice"


def test_add_with_an_expiry_list_and_revoke(tmp_path: Path) -> None:
    path = str(tmp_path / "access.yaml")
    env = {"TABLEWATCH_ACCESS_FILE": path}
    soon = (datetime.now(UTC) + timedelta(days=30)).date().isoformat()
    assert (
        tablewatch("access", "add", "--name", "sam", "--role", "surveillance", env=env).exit_code
        == 0
    )
    added = tablewatch(
        "access", "add", "--name", "ann", "--role", "admin", "--expires", soon, env=env
    )
    assert added.exit_code == 0, added.output
    assert f"expires {soon}T00:00:00Z" in added.stderr
    listed = tablewatch("access", "list", "--file", path)
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout.splitlines()
    assert lines[0].split() == [
        "name", "role", "created", "expires", "state", "token", "hash", "pits",
    ]  # fmt: skip
    assert lines[1].split()[:2] == ["sam", "surveillance"] and "never" in lines[1]
    assert lines[2].split()[:2] == ["ann", "admin"] and f"{soon}T00:00:00Z" in lines[2]
    assert all("active" in line and "sha256:" in line for line in lines[1:])
    assert added.stdout.strip() not in listed.output  # never the token

    revoked = tablewatch("access", "revoke", "--name", "sam", env=env)
    assert revoked.exit_code == 0, revoked.output
    assert [e.name for e in load(path).entries] == ["ann"]
    again = tablewatch("access", "revoke", "--name", "sam", env=env)
    assert again.exit_code == 2 and "nobody named 'sam'" in again.stderr


def test_an_expired_token_is_listed_as_such(tmp_path: Path) -> None:
    path = tmp_path / "access.yaml"
    past = format_time(datetime.now(UTC) - timedelta(days=1))
    path.write_text(
        "version: 1\nprincipals:\n"
        f"- {{name: old, role: auditor, token_hash: '{hash_token('x')}', created: 2026-01-01,"
        f" expires: '{past}'}}\n"
    )
    listed = tablewatch("access", "list", "--file", str(path))
    assert "expired" in listed.stdout.splitlines()[1]


def test_refusals(tmp_path: Path) -> None:
    path = str(tmp_path / "access.yaml")
    args = ("access", "add", "--file", path)
    assert tablewatch(*args, "--name", "alice", "--role", "auditor").exit_code == 0
    twice = tablewatch(*args, "--name", "alice", "--role", "admin")
    assert twice.exit_code == 2 and "already holds a token" in twice.stderr
    past = tablewatch(*args, "--name", "bob", "--role", "admin", "--expires", "2020-01-01")
    assert past.exit_code == 2 and "already past" in past.stderr
    bad_time = tablewatch(*args, "--name", "bob", "--role", "admin", "--expires", "soon")
    assert bad_time.exit_code == 2 and "not an ISO 8601" in bad_time.stderr
    bad_name = tablewatch(*args, "--name", "bob smith", "--role", "admin")
    assert bad_name.exit_code == 2 and "name 'bob smith'" in bad_name.stderr
    bad_role = tablewatch(*args, "--name", "bob", "--role", "root")
    assert bad_role.exit_code == 2 and "'root' is not one of" in bad_role.output
    assert [e.name for e in load(path).entries] == ["alice"]  # none of these wrote anything
    missing = tablewatch("access", "list", "--file", str(tmp_path / "none.yaml"))
    assert missing.exit_code == 2 and "no such file" in missing.stderr


def test_a_bad_file_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "access.yaml"
    path.write_text("version: 1\nprincipals:\n- name: alice\n  role: auditor\n  token: tw_x\n")
    for args in (
        ("list", "--file", str(path)),
        ("add", "--file", str(path), "--name", "bob", "--role", "admin"),
        ("revoke", "--file", str(path), "--name", "alice"),
    ):
        result = tablewatch("access", *args)
        assert result.exit_code == 2, (args, result.output)
        assert f"{path}:5: unknown key 'token' in a principal" in result.stderr
    assert "token: tw_x" in path.read_text()  # left as it was


def test_add_with_pits_gives_the_principal_its_pits(tmp_path: Path) -> None:
    path = tmp_path / "access.yaml"
    added = tablewatch(
        "access", "add", "--file", str(path), "--name", "fm", "--role", "floor_manager",
        "--pit", "A", "--pit", "B", "--pit", "A",
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    assert "pits A, B" in added.stderr
    listed = tablewatch("access", "list", "--file", str(path)).stdout.splitlines()
    assert listed[1].split()[:2] == ["fm", "floor_manager"] and listed[1].split()[-1] == "A,B"
    assert load(path).entries[0].pits == ("A", "B")
    principal = TokenAuthenticator(load(path)).check(added.stdout.strip())
    assert (principal.name, principal.role, principal.pits) == (
        "fm",
        Role.FLOOR_MANAGER,
        ("A", "B"),
    )
