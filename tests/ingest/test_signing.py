"""Signed events through the in-process HTTP app (memory sink): which events each table
accepts, the reasons of the others, their dead letters and counts; no key in any log."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from aiohttp.test_utils import TestClient, TestServer
from click.testing import CliRunner

from tablewatch.commands.ingest import ingest, serve_ingest
from tablewatch.ingest.http_server import make_app
from tablewatch.ingest.service import Ingestor
from tablewatch.ingest.signing import SignatureCheck
from tablewatch.ingest.sink import MemorySink
from tablewatch.rules.config import parse_config
from tablewatch.rules.signature import signed
from tablewatch.table_keys import load_keys
from tests.ingest.events import array, edited, table_events

KEYS = {
    "TW_TEST_KEY_OLD": "old key: 7Qe1b0W2-pZ9yXcVnM4aLk8sDf3gHj6t",
    "TW_TEST_KEY_NEW": "new key: Rt5yU8iO0pA1sD2fG3hJ4kL5zX6cV7bN",
    "TW_TEST_KEY_OFF": "off key: Qw3eR4tY5uI6oP7aS8dF9gH0jK1lZ2xC",
}
OLD, NEW, OFF = (KEYS[f"TW_TEST_KEY_{name}"].encode() for name in ("OLD", "NEW", "OFF"))


def config_document(required_kids: dict[str, str]) -> dict[str, Any]:
    lir = {"game": "let_it_ride", "paytables": {"main": "A"}}
    return {
        "tables": {
            "SIG-1": {**lir, "signing": "required", "keys": required_kids},
            "SIG-OFF": {**lir, "signing": "off", "keys": {"k-off": "TW_TEST_KEY_OFF"}},
            "PLAIN": lir,
        }
    }


ROTATING = {"k-new": "TW_TEST_KEY_NEW", "k-old": "TW_TEST_KEY_OLD"}


def check(kids: dict[str, str] = ROTATING) -> SignatureCheck:
    return SignatureCheck(load_keys(parse_config(config_document(kids)), KEYS))


Scenario = Callable[[TestClient[Any, Any], MemorySink], Awaitable[None]]


def run(scenario: Scenario, signatures: SignatureCheck | None) -> None:
    sink = MemorySink()

    async def main() -> None:
        app = make_app(Ingestor(sink, signatures=signatures))
        async with TestClient(TestServer(app)) as client:
            await scenario(client, sink)

    asyncio.run(main())


async def post(client: TestClient[Any, Any], items: list[bytes]) -> dict[str, Any]:
    response = await client.post("/events", data=array(items))
    assert response.status == 200
    reply: dict[str, Any] = await response.json()
    return reply


def statuses(reply: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    return [
        (r["status"], r["field"], (r["reason"] or "").split(":")[0] or None)
        for r in reply["results"]
    ]


def test_a_required_table_accepts_only_what_verifies() -> None:
    events = table_events("SIG-1", rounds=2)  # 9 events
    good_new = signed(events[0], "k-new", NEW)
    good_old = signed(events[1], "k-old", OLD)  # rotation: both keys are current
    unsigned = events[2]
    unknown_kid = signed(events[3], "k-gone", OLD)
    wrong_key = signed(events[4], "k-new", OLD)
    altered = edited(signed(events[6], "k-new", NEW), amount=999_999)  # a wager's amount
    other_sig = json.loads(signed(events[7], "k-new", NEW))["sig"]
    another_events_sig = edited(signed(events[5], "k-new", NEW), sig=other_sig)
    no_kid = edited(signed(events[7], "k-new", NEW), kid=None)
    malformed = edited(signed(events[8], "k-new", NEW), sig="not-a-signature")

    async def scenario(client: TestClient[Any, Any], sink: MemorySink) -> None:
        items = [
            good_new,
            good_old,
            unsigned,
            unknown_kid,
            wrong_key,
            altered,
            another_events_sig,
            no_kid,
            malformed,
        ]
        reply = await post(client, items)
        assert statuses(reply) == [
            ("accepted", None, None),
            ("accepted", None, None),
            ("rejected", "sig", "unsigned"),
            ("rejected", "kid", "unknown kid 'k-gone'"),
            ("rejected", "sig", "bad sig"),
            ("rejected", "sig", "bad sig"),
            ("rejected", "sig", "bad sig"),
            ("rejected", "kid", "missing kid"),
            ("rejected", "sig", "malformed sig"),
        ]
        assert reply["results"][3]["reason"] == (
            "unknown kid 'k-gone': not one of table SIG-1's current keys (k-new, k-old)"
        )
        # only what verified reaches table-events, as received; the others are dead letters
        assert [v for _, v in sink.events] == [good_new, good_old]
        letters = [json.loads(letter.value) for letter in sink.letters]
        assert [(d["where"], d["field"], d["table_id"]) for d in letters] == [
            (f"item {i}", field, "SIG-1")
            for i, field in enumerate(["sig", "kid", "sig", "sig", "sig", "kid", "sig"], 2)
        ]
        assert [d["raw"].encode() for d in letters] == items[2:]

        metrics = await (await client.get("/metrics")).json()
        assert metrics["accepted"] == 2 and metrics["rejected"] == 7
        signature_metrics = {k: v for k, v in metrics.items() if k.startswith(("sig", "rej"))}
        assert signature_metrics == {
            "signatures_verified": 2,
            "rejected_unsigned": 1,
            "rejected_missing_kid": 1,
            "rejected_unknown_kid": 1,
            "rejected_malformed_sig": 1,
            "rejected_bad_sig": 3,
            "rejected": 7,
        }

    run(scenario, check())


def test_a_forged_copy_of_an_accepted_event_is_rejected_not_a_duplicate() -> None:
    event = table_events("SIG-1")[0]
    good = signed(event, "k-new", NEW)
    forged = signed(event, "k-new", b"a guess at the key")

    async def scenario(client: TestClient[Any, Any], sink: MemorySink) -> None:
        reply = await post(client, [good, forged, good])
        assert statuses(reply) == [
            ("accepted", None, None),
            ("rejected", "sig", "bad sig"),
            ("duplicate", None, "event_id already accepted earlier in this batch"),
        ]

    run(scenario, check())


def test_a_key_taken_out_of_the_configuration_no_longer_verifies() -> None:
    events = table_events("SIG-1")
    old, new = signed(events[0], "k-old", OLD), signed(events[1], "k-new", NEW)

    async def scenario(client: TestClient[Any, Any], sink: MemorySink) -> None:
        reply = await post(client, [old, new])
        assert statuses(reply) == [
            ("rejected", "kid", "unknown kid 'k-old'"),
            ("accepted", None, None),
        ]

    run(scenario, check({"k-new": "TW_TEST_KEY_NEW"}))


def test_signing_off_with_keys_checks_a_signature_that_is_there() -> None:
    events = table_events("SIG-OFF")
    items = [
        events[0],  # unsigned: accepted, as without signing
        signed(events[1], "k-off", OFF),
        signed(events[2], "k-off", NEW),  # signed, but not with its key
        signed(events[3], "k-nope", OFF),
    ]

    async def scenario(client: TestClient[Any, Any], sink: MemorySink) -> None:
        reply = await post(client, items)
        assert statuses(reply) == [
            ("accepted", None, None),
            ("accepted", None, None),
            ("rejected", "sig", "bad sig"),
            ("rejected", "kid", "unknown kid 'k-nope'"),
        ]
        metrics = await (await client.get("/metrics")).json()
        assert metrics["signatures_verified"] == 1 and metrics["rejected_unsigned"] == 0

    run(scenario, check())


@pytest.mark.parametrize("with_config", [True, False], ids=["plain-table", "no-config"])
def test_without_keys_kid_and_sig_are_carried_unchecked(with_config: bool) -> None:
    table = "PLAIN" if with_config else "SIG-1"
    events = table_events(table)
    items = [events[0], signed(events[1], "k1", b"any key"), edited(events[2], kid="k", sig="x")]

    async def scenario(client: TestClient[Any, Any], sink: MemorySink) -> None:
        reply = await post(client, items)
        assert [r["status"] for r in reply["results"]] == ["accepted"] * 3
        assert [v for _, v in sink.events] == items
        metrics = await (await client.get("/metrics")).json()
        assert metrics["signatures_verified"] == 0

    run(scenario, check() if with_config else None)


def test_no_key_reaches_a_log_a_reply_or_a_dead_letter(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    events = table_events("SIG-1", rounds=2)
    items = [
        signed(events[0], "k-new", NEW),
        events[1],
        signed(events[2], "k-gone", OLD),
        signed(events[3], "k-new", OLD),
        edited(signed(events[4], "k-old", OLD), amount=1),
    ]
    texts: list[str] = []

    async def scenario(client: TestClient[Any, Any], sink: MemorySink) -> None:
        texts.append(json.dumps(await post(client, items)))
        texts.append(await (await client.get("/metrics")).text())
        texts.extend(letter.value.decode() for letter in sink.letters)

    caplog.set_level(logging.DEBUG)
    signatures = check()
    texts.append(signatures.describe())
    texts.append(repr(signatures.tables))
    run(scenario, signatures)
    assert "signature refused" in caplog.text  # the refusals were logged ...
    captured = capsys.readouterr()
    everything = "\n".join([caplog.text, captured.out, captured.err, *texts])
    for key in KEYS.values():  # ... and no key, in any form
        raw = key.encode()
        for form in (key, raw.hex(), base64.b64encode(raw).decode(), key[9:]):
            assert form not in everything


def test_the_commands_refuse_a_key_not_set_before_any_kafka(tmp_path: Path) -> None:
    config = tmp_path / "tables.yaml"
    config.write_text(yaml.safe_dump(config_document(ROTATING), sort_keys=False))
    events = tmp_path / "events.jsonl"
    events.write_bytes(b"\n".join(table_events("SIG-1")) + b"\n")
    env = {**KEYS, "TW_TEST_KEY_OLD": ""}
    for command, args in [
        (ingest, [str(events)]),
        (serve_ingest, ["--port", "0"]),
    ]:
        result = CliRunner().invoke(
            command, [*args, "--config", str(config), "--bootstrap", "127.0.0.1:1"], env=env
        )
        assert result.exit_code == 2, result.output
        assert result.stderr.endswith(
            f"{config}: table SIG-1: keys.k-old: environment variable TW_TEST_KEY_OLD is empty "
            "(it holds the key)\n"
        )
        assert KEYS["TW_TEST_KEY_NEW"] not in result.output
