"""``tablewatch cases``: the command line against a served app (the API's world of
test_api_cases, uvicorn on a thread): the queue as the API lists it, a claim and the
second claim refused naming who has it (exit 1), money in dollars.cents stored in cents,
a note's control characters escaped when shown, usage mistakes exit 2 with nothing
written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tablewatch.cli import main
from tests.api.live_server import served
from tests.casework import test_api_cases
from tests.casework.test_api_cases import World, auth, in_pit, step_rows

world_of_cli = test_api_cases.world  # the API's world (module-scoped): this module's own


@pytest.fixture(scope="module")
def base(world_of_cli: World) -> Iterator[str]:
    with served(world_of_cli.app) as url:
        yield url


def run(world: World, base: str, who: str | None, *args: str) -> Result:
    env = {"TABLEWATCH_API": base, "TABLEWATCH_TOKEN": world.tokens[who] if who else ""}
    return CliRunner().invoke(main, ["cases", *args], env=env, catch_exceptions=False)


def test_list_is_the_apis_queue(world_of_cli: World, base: str) -> None:
    world = world_of_cli
    api = world.client.get("/api/v1/cases?limit=5", headers=auth(world, "aud")).json()
    listed = run(world, base, "aud", "list", "--limit", "5", "--format", "json")
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout) == api
    table = run(world, base, "aud", "list", "--limit", "5")
    assert table.exit_code == 0
    assert [c["finding_id"][:8] for c in api["cases"]] == [
        line.split("│")[1].strip()[:8] for line in table.stdout.splitlines() if "│ open" in line
    ][:5]
    assert "the next page: --cursor " + api["next_cursor"] in table.stdout


def test_claim_then_the_second_claim_is_told_who(world_of_cli: World, base: str) -> None:
    world = world_of_cli
    finding_id = in_pit(world, world.pits[0], 5)
    won = run(world, base, "sam", "claim", finding_id)
    assert won.exit_code == 0, won.output
    assert won.stdout.startswith(f"{finding_id}: in_review by sam")
    lost = run(world, base, "sue", "claim", finding_id)
    assert lost.exit_code == 1
    assert "HTTP 409: in review by sam since" in lost.stderr
    refused = run(world, base, "fm", "close", finding_id, "--disposition", "duplicate")
    assert refused.exit_code == 1 and "HTTP 403" in refused.stderr


def test_close_with_money_and_a_note_shown_escaped(
    world_of_cli: World, base: str, tmp_path: Path
) -> None:
    world = world_of_cli
    finding_id = in_pit(world, world.pits[0], 6)
    token_file = tmp_path / "token"
    token_file.write_text(world.tokens["sam"] + "\n")
    claim = run(world, base, None, "claim", finding_id, "--token-file", str(token_file))
    assert claim.exit_code == 0, claim.output
    steps = step_rows(world, finding_id)
    wrong = run(world, base, "sam", "close", finding_id, "--disposition", "duplicate",
                "--recovered", "12.345")  # fmt: skip
    assert wrong.exit_code == 2 and "--recovered: '12.345' is not an amount" in wrong.stderr
    assert step_rows(world, finding_id) == steps
    closed = run(world, base, "sam", "close", finding_id, "--disposition", "duplicate",
                 "--recovered", "12.50", "--note", "seen\n2. forged line")  # fmt: skip
    assert closed.exit_code == 0, closed.output
    assert "closed (duplicate), recovered $12.50" in closed.stdout
    stored = world.store.query(
        "SELECT step, recovered_cents, note FROM case_events FINAL"
        f" WHERE finding_id = '{finding_id}' ORDER BY step DESC LIMIT 1"
    ).result_rows
    assert [r[1:] for r in stored] == [(1250, "seen\n2. forged line")]
    # a step written into the store by someone else than the desk, with an ESC
    world.store.command(
        "INSERT INTO case_events (finding_id, step, kind, at, by, role, note, state)"
        f" VALUES ('{finding_id}', {stored[0][0] + 1}, 'noted', now64(3), 'x\x1b[2J', 'admin',"
        " 'wiped\x1b[2J', 'closed')"
    )
    shown = run(world, base, "aud", "show", finding_id)
    assert shown.exit_code == 0
    assert "closed by sam (surveillance): duplicate, recovered $12.50" in shown.stdout
    assert "note: seen\\n2. forged line" in shown.stdout
    assert "by x\\x1b[2J (admin); note: wiped\\x1b[2J" in shown.stdout
    assert "\x1b" not in shown.stdout
    reopened = run(world, base, "sam", "reopen", finding_id, "--reason", "disputed")
    assert reopened.exit_code == 0 and reopened.stdout.startswith(f"{finding_id}: open")


def test_usage_mistakes_exit_2_and_write_nothing(world_of_cli: World, base: str) -> None:
    world = world_of_cli
    finding_id = in_pit(world, world.pits[0], 7)
    before = step_rows(world)
    no_token = run(world, base, None, "claim", finding_id)
    assert no_token.exit_code == 2 and "no token: set TABLEWATCH_TOKEN" in no_token.stderr
    no_reason = run(world, base, "sam", "reopen", finding_id)
    assert no_reason.exit_code == 2
    unknown = run(world, base, "sam", "note", "no-such-finding", "hello")
    assert unknown.exit_code == 1 and "HTTP 404" in unknown.stderr
    assert step_rows(world) == before


def test_bookmark_and_link(world_of_cli: World, base: str) -> None:
    world = world_of_cli
    finding_id = in_pit(world, world.pits[0], 9)
    related = [in_pit(world, world.pits[0], 10), in_pit(world, world.pits[0], 11)]
    case = world.client.get(f"/api/v1/cases/{finding_id}", headers=auth(world, "aud")).json()
    camera = case["cameras"][-1]
    marked = run(world, base, "sam", "bookmark", finding_id, "--camera", camera,
                 "--window-start", "2026-11-29T18:00:00.000Z",
                 "--window-end", "2026-11-29T18:02:00.000Z")  # fmt: skip
    assert marked.exit_code == 0, marked.output
    linked = run(world, base, "sam", "link", finding_id, *related)
    assert linked.exit_code == 0, linked.output
    after = world.client.get(f"/api/v1/cases/{finding_id}", headers=auth(world, "aud")).json()
    assert (after["camera"], after["window_start"], after["window_end"]) == (
        camera, "2026-11-29T18:00:00.000Z", "2026-11-29T18:02:00.000Z",
    )  # fmt: skip
    assert sorted(after["links"]) == sorted(related)
    assert [s["kind"] for s in after["steps"]] == ["bookmarked", "linked"]
    none = run(world, base, "sam", "link", finding_id)
    assert none.exit_code == 2 and "RELATED" in none.output
