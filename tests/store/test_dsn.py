"""DSNs: embedded directories (relative, absolute, home) and servers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewatch.store.dsn import (
    DEFAULT_DSN,
    ENV_VAR,
    DsnError,
    EmbeddedDsn,
    ServerDsn,
    default_dsn,
    parse_dsn,
    redact,
)


def test_three_slashes_is_relative_to_the_cwd(tmp_path: Path) -> None:
    assert parse_dsn("chdb:///.data/chdb", cwd=tmp_path) == EmbeddedDsn(
        (tmp_path / ".data" / "chdb").resolve()
    )


def test_four_slashes_is_absolute(tmp_path: Path) -> None:
    assert parse_dsn(f"chdb:///{tmp_path}/x/", cwd=Path("/elsewhere")) == EmbeddedDsn(
        (tmp_path / "x").resolve()
    )


def test_home_is_expanded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert parse_dsn("chdb:///~/tw") == EmbeddedDsn((tmp_path / "tw").resolve())


def test_relative_spellings_of_one_directory_are_one_path(tmp_path: Path) -> None:
    # chdb compares engine paths literally
    assert parse_dsn("chdb:///a/../b/", cwd=tmp_path) == parse_dsn("chdb:///b", cwd=tmp_path)


def test_server_dsns_pass_through() -> None:
    url = "https://tw:secret@ch.example:8443/tablewatch"
    assert parse_dsn(url) == ServerDsn(url)
    assert parse_dsn("http://localhost:8123/default") == ServerDsn("http://localhost:8123/default")


@pytest.mark.parametrize(
    "dsn", ["chdb:///", "chdb://memory", "chdb:///x?mode=ro", "sqlite:///x.db", "http://", "x"]
)
def test_bad_dsns_are_refused(dsn: str) -> None:
    with pytest.raises(DsnError):
        parse_dsn(dsn)


def test_the_default_dsn_is_not_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The environment is the --dsn option's (TABLEWATCH_DSN), not the store's."""
    monkeypatch.setenv(ENV_VAR, "http://h:8123/db")
    assert default_dsn() == DEFAULT_DSN == "chdb:///.data/tablewatch"


def test_passwords_are_redacted() -> None:
    assert redact("http://tw:secret@h:8123/db") == "http://tw:***@h:8123/db"
    assert redact("chdb:///.data/tw") == "chdb:///.data/tw"
