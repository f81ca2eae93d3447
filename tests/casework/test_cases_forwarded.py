"""serve-api --cases: a public API forwards each case command, with the caller's own
token, to the one serve-api per store that runs the casework desk; the desk decides."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner
from fastapi.testclient import TestClient

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.authenticate import FileTokenAuthenticator
from tablewatch.access.gate import Gate
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.api.app import create_app
from tablewatch.api.case_actions import DeskActions, DeskForwardActions
from tablewatch.api.sources import ReaderPool, open_product_reader
from tablewatch.casework.desk import CaseDesk
from tablewatch.casework.dispositions import DEFAULT_DISPOSITIONS
from tablewatch.cli import main
from tablewatch.services import free_port
from tablewatch.store.client import connect
from tests.api.live_server import served
from tests.api.store import fill_store


def test_a_claim_through_the_public_api_is_written_once_by_the_desk(tmp_path: Path) -> None:
    filled = fill_store(tmp_path / "store", tables=2, rounds=60)
    tokens = {"sam": new_token(), "aud": new_token()}
    roles = {"sam": Role.SURVEILLANCE, "aud": Role.AUDITOR}
    created = datetime(2026, 1, 1, tzinfo=UTC)
    access = tmp_path / "access.yaml"
    save(access, AccessFile(tuple(
        AccessEntry(name, roles[name], hash_token(token), created) for name, token in tokens.items()
    )))  # fmt: skip
    store = connect(filled.dsn)
    desk_pool = ReaderPool(lambda: open_product_reader(filled.dsn), size=1)
    try:
        fid = str(store.query("SELECT finding_id FROM findings_v LIMIT 1").result_rows[0][0])
        desk_app = create_app(
            desk_pool, described_as="desk", gate=Gate(FileTokenAuthenticator(access)),
            case_actions=DeskActions(CaseDesk(store, DEFAULT_DISPOSITIONS)),
        )  # fmt: skip
        with served(desk_app) as desk_url:
            public = TestClient(create_app(
                desk_pool, described_as="public", gate=Gate(FileTokenAuthenticator(access)),
                case_actions=DeskForwardActions(desk_url),
            ))  # fmt: skip
            sam = {"Authorization": f"Bearer {tokens['sam']}"}
            claimed = public.post(f"/api/v1/cases/{fid}/claim", json={}, headers=sam)
            assert claimed.status_code == 200, claimed.text
            assert (claimed.json()["state"], claimed.json()["assignee"]) == ("in_review", "sam")
            again = public.post(f"/api/v1/cases/{fid}/claim", json={}, headers=sam)
            assert again.status_code == 200 and again.json()["steps"] == 1
            # the desk authorizes the caller's own token: an auditor may not work cases
            aud = {"Authorization": f"Bearer {tokens['aud']}"}
            refused = public.post(f"/api/v1/cases/{fid}/release", json={}, headers=aud)
            assert refused.status_code == 403, refused.text
        rows = store.query(f"SELECT by FROM case_events WHERE finding_id = '{fid}'").result_rows
        assert [r[0] for r in rows] == ["sam"]
    finally:
        desk_pool.close()
        store.close()


def test_the_desk_unreachable_is_503_naming_it(tmp_path: Path) -> None:
    filled = fill_store(tmp_path / "store", tables=1, rounds=20)
    token = new_token()
    access = tmp_path / "access.yaml"
    save(access, AccessFile((
        AccessEntry("sam", Role.SURVEILLANCE, hash_token(token), datetime(2026, 1, 1, tzinfo=UTC)),
    )))  # fmt: skip
    pool = ReaderPool(lambda: open_product_reader(filled.dsn), size=1)
    url = f"http://127.0.0.1:{free_port()}"
    try:
        public = TestClient(create_app(
            pool, described_as="public", gate=Gate(FileTokenAuthenticator(access)),
            case_actions=DeskForwardActions(url),
        ))  # fmt: skip
        answer = public.post(
            "/api/v1/cases/any/claim", json={}, headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 503
        assert answer.json()["detail"].startswith(f"the casework desk at {url} cannot be reached")
    finally:
        pool.close()


def serve(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["serve-api", *args], prog_name="tablewatch")
    return result.exit_code, result.stderr


def test_the_options_conflicts_exit_2(tmp_path: Path) -> None:
    dsn = f"chdb:///{tmp_path / 'store'}"
    code, err = serve("--dsn", dsn, "--cases", "http://desk:8090", "--cases-dsn", dsn)
    assert code == 2 and "give --cases or --cases-dsn, not both" in err
    code, err = serve("--worker", "http://127.0.0.1:6066", "--cases", "http://desk:8090")
    assert code == 2
    assert "--cases and --cases-dsn do not apply with --worker" in err
    code, err = serve("--worker", "http://127.0.0.1:6066", "--cases-dsn", dsn)
    assert code == 2
    assert "--cases and --cases-dsn do not apply with --worker" in err


def test_a_bad_cases_dsn_is_refused_without_printing_it(tmp_path: Path) -> None:
    code, err = serve(
        "--dsn", f"chdb:///{tmp_path / 'store'}", "--cases-dsn", "bogus://casework:s3cret@x"
    )
    assert code == 2 and "--cases-dsn: not a DSN" in err
    assert "s3cret" not in err
