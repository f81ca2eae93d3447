"""The access file: written and read back, and every kind of bad file refused with its line."""

from __future__ import annotations

import os
import stat
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from tablewatch.access.access_file import (
    AccessEntry,
    AccessFile,
    AccessFileError,
    dumps,
    load,
    parse,
    parse_time,
    save,
    utc,
)
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token

H1 = "sha256:" + "1" * 64
H2 = "sha256:" + "2" * 64
CREATED = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def test_written_and_read_back(tmp_path: Path) -> None:
    access = AccessFile(
        (
            AccessEntry("alice", Role.AUDITOR, H1, CREATED),
            AccessEntry("bob@casino", Role.ADMIN, H2, CREATED, datetime(2027, 1, 31, tzinfo=UTC)),
        )
    )
    path = tmp_path / "access.yaml"
    save(path, access)
    assert load(path) == access
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # a new file: its owner's only
    text = path.read_text()
    assert "expires: '2027-01-31T00:00:00Z'" in text
    assert text.count("expires") == 1  # none written for alice
    os.chmod(path, 0o640)
    save(path, access.without("alice"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # an existing file keeps its mode
    assert [e.name for e in load(path).entries] == ["bob@casino"]


def test_the_token_itself_is_never_written(tmp_path: Path) -> None:
    token = new_token()
    access = AccessFile().with_entry(
        AccessEntry("carol", Role.SURVEILLANCE, hash_token(token), CREATED)
    )
    save(tmp_path / "a.yaml", access)
    text = (tmp_path / "a.yaml").read_text()
    assert token not in text and token[3:] not in text
    assert hash_token(token) in text


def test_an_empty_list_is_a_file_nobody_can_use() -> None:
    assert parse("version: 1\nprincipals: []\n") == AccessFile()
    assert parse(dumps(AccessFile())) == AccessFile()


def test_times_dates_and_zones() -> None:
    text = (
        "version: 1\nprincipals:\n"
        f"- {{name: a, role: auditor, token_hash: '{H1}', created: 2026-12-01T10:00:00+02:00,"
        " expires: 2027-01-31}\n"
        f"- {{name: b, role: auditor, token_hash: '{H2}', created: '2026-12-01 10:00:00',"
        " expires: null}\n"
    )
    a, b = parse(text).entries
    assert a.created == datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    assert a.expires == datetime(2027, 1, 31, tzinfo=UTC)
    assert b.created == datetime(2026, 12, 1, 10, 0, tzinfo=UTC)  # no zone: UTC
    assert b.expires is None
    assert parse_time("2027-01-31") == utc(date(2027, 1, 31))
    assert parse_time("2027-01-31T18:00:00Z") == datetime(2027, 1, 31, 18, tzinfo=UTC)
    with pytest.raises(ValueError, match="not an ISO 8601"):
        parse_time("next tuesday")


def test_expiry() -> None:
    entry = AccessEntry("a", Role.AUDITOR, H1, CREATED, datetime(2027, 1, 1, tzinfo=UTC))
    assert not entry.expired(datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC))
    assert entry.expired(datetime(2027, 1, 1, tzinfo=UTC))  # refused from that instant
    assert not AccessEntry("b", Role.AUDITOR, H2, CREATED).expired(datetime(2999, 1, 1, tzinfo=UTC))


def _entry(**fields: str) -> str:
    values = {"name": "alice", "role": "auditor", "token_hash": H1, "created": "2026-12-01"}
    values.update(fields)
    lines = [f"  {key}: {value}" if value else f"  {key}:" for key, value in values.items()]
    lines[0] = "- " + lines[0][2:]
    return "\n".join(lines) + "\n"


HEAD = "version: 1\nprincipals:\n"
BAD = [
    ("", 1, "empty: expected version and principals"),
    ("version: 1\nprincipals: [\n", 3, "not YAML"),
    ("version: 1\n\tprincipals: []\n", 2, "not YAML"),
    ("- 1\n- 2\n", 1, "the file must be a mapping"),
    ("principals: []\n", 1, "no version"),
    ("version: 2\nprincipals: []\n", 1, "version must be 1"),
    ("version: 1\n", 1, "no principals"),
    ("version: 1\nprincipals: {}\n", 2, "principals must be a list"),
    ("version: 1\nusers: []\nprincipals: []\n", 2, "unknown key 'users' in the file"),
    ("version: 1\nversion: 1\nprincipals: []\n", 2, "version is given twice"),
    (HEAD + "- alice\n", 3, "a principal must be a mapping"),
    (HEAD + _entry(expire="2027-01-01"), 7, "unknown key 'expire' in a principal"),
    (HEAD + _entry(role="root"), 4, "unknown role 'root'"),
    (HEAD + _entry(role="[admin]"), 4, "role must be a string"),
    (HEAD + _entry(name="'al ice'"), 3, "name 'al ice'"),
    (HEAD + _entry(name="'-x'"), 3, "name '-x'"),
    (HEAD + _entry(token_hash="tw_secret_token_in_clear"), 5, "never the token"),
    (HEAD + _entry(token_hash="sha256:" + "A" * 64), 5, "64 lower-case hex digits"),
    (HEAD + _entry(token_hash="md5:" + "1" * 32), 5, "token_hash must be sha256:"),
    (HEAD + _entry(created="yesterday"), 6, "created: 'yesterday' is not an ISO 8601"),
    (HEAD + _entry(created=""), 6, "created must be a time"),
    (HEAD + _entry(expires="soon"), 7, "expires: 'soon' is not an ISO 8601"),
    (HEAD + _entry(expires="12"), 7, "expires must be an ISO 8601 time"),
    (HEAD + "- name: alice\n  role: auditor\n", 3, "a principal without token_hash"),
    (HEAD + _entry() + _entry(token_hash=H2), 7, "'alice' is listed twice (line 3)"),
    (HEAD + _entry() + _entry(name="bob"), 7, "the token hash of line 3 is given again"),
    (HEAD + _entry(pits="A"), 7, "pits must be a list of pit names"),
    (HEAD + _entry(pits="[A, A]"), 7, "pit 'A' is listed twice"),
    (HEAD + _entry(pits="['-x']"), 7, "pit '-x'"),
    (HEAD + _entry(pits="[[A]]"), 7, "a pit must be a string"),
]


@pytest.mark.parametrize(("text", "line", "reason"), BAD)
def test_a_bad_file_is_refused_with_its_line_and_reason(
    tmp_path: Path, text: str, line: int, reason: str
) -> None:
    path = tmp_path / "access.yaml"
    path.write_text(text)
    with pytest.raises(AccessFileError) as caught:
        load(path)
    assert caught.value.line == line, (str(caught.value), text)
    assert reason in caught.value.reason, str(caught.value)
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(AccessFileError, match="no such file"):
        load(tmp_path / "missing.yaml")
    (tmp_path / "latin1.yaml").write_bytes(b"version: 1\nprincipals: []\n# caf\xe9\n")
    with pytest.raises(AccessFileError, match="not UTF-8"):
        load(tmp_path / "latin1.yaml")


def test_adding_and_removing() -> None:
    access = AccessFile().with_entry(AccessEntry("alice", Role.AUDITOR, H1, CREATED))
    with pytest.raises(ValueError, match="already holds a token"):
        access.with_entry(AccessEntry("alice", Role.ADMIN, H2, CREATED))
    with pytest.raises(ValueError, match="already in the file"):
        access.with_entry(AccessEntry("bob", Role.ADMIN, H1, CREATED))
    with pytest.raises(ValueError, match="name"):
        access.with_entry(AccessEntry("b b", Role.ADMIN, H2, CREATED))
    with pytest.raises(ValueError, match="hex digits"):
        access.with_entry(AccessEntry("bob", Role.ADMIN, "tw_token", CREATED))
    assert access.without("alice") == AccessFile()
    with pytest.raises(KeyError):
        access.without("bob")


def test_pits_written_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "access.yaml"
    fm = AccessEntry("fm", Role.FLOOR_MANAGER, H1, CREATED, pits=("A", "High Limit"))
    save(path, AccessFile((fm, AccessEntry("sam", Role.SURVEILLANCE, H2, CREATED))))
    assert "pits:" in path.read_text()
    read = load(path)
    assert read.entries[0].pits == ("A", "High Limit")
    assert read.entries[1].pits == ()
    with pytest.raises(ValueError, match="pit '-x'"):
        AccessFile().with_entry(AccessEntry("x", Role.FLOOR_MANAGER, H1, CREATED, pits=("-x",)))
