"""schemathesis against /openapi.json: generated requests to every operation (valid and
invalid parameters), no server error, every answer matching its documented schema."""

from __future__ import annotations

from collections import Counter
from typing import Any

import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import positive_data_acceptance

EXAMPLES = 60  # per operation and mode; operations without parameters give fewer


def test_generated_requests_get_answers_matching_the_schema(app: FastAPI) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    # sent with FastAPI's own client (httpx): schemathesis's requests transport does not
    # work with the urllib3 installed here; schemathesis validates the httpx answers
    client = TestClient(app)
    sent: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    labels = []
    for result in schema.get_all_operations():
        operation = result.ok()  # type: ignore[union-attr]
        labels.append(operation.label)
        if operation.path.startswith("/api/v1/cases"):
            continue  # a token and a desk: tests/casework/test_api_cases.py
        if operation.label == "GET /api/v1/stream":
            continue  # never ends: tests/api/test_stream.py reads it
        if operation.label == "GET /api/v1/reports/shift":
            continue  # a token and a rules file: tests/reports/test_shift_api.py
        takes_parameters = bool(list(operation.iter_parameters()))
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            if mode is GenerationMode.NEGATIVE and not takes_parameters:
                continue  # nothing to get wrong

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                database=None,
            )
            def one(case: schemathesis.Case[Any]) -> None:
                response = client.request(
                    case.method, case.formatted_path, params=case.query, headers=case.headers
                )
                # what the schema cannot say, refused (422) whatever its shape: a cursor
                # the API did not give (it is opaque), a day the calendar has not (02-31)
                opaque = bool({"cursor", "since", "until"} & set(case.query or {}))
                case.validate_response(
                    response, excluded_checks=[positive_data_acceptance] if opaque else None
                )
                sent[case.operation.label] += 1
                statuses[response.status_code] += 1
                assert response.status_code < 500, (case.path, case.query, response.text)

            one()
    cases = ["GET /api/v1/cases", "GET /api/v1/cases/{finding_id}"] + [
        f"POST /api/v1/cases/{{finding_id}}/{action}"
        for action in ("claim", "release", "note", "bookmark", "link", "close", "reopen")
    ]
    assert sorted(labels) == sorted(cases + [
        f"GET {path}"
        for path in (
            "/health", "/api/v1/findings", "/api/v1/rounds",
            "/api/v1/rounds/{table_id}/{round_id}", "/api/v1/tables", "/api/v1/replays",
            "/api/v1/replays/{run_id}/diff", "/api/v1/stream", "/api/v1/reports/shift",
        )
    ])  # fmt: skip
    total = sum(sent.values())
    print(f"schemathesis: {total} requests, {dict(sent)}, statuses {dict(statuses)}")
    assert total >= 500
    assert statuses[200] >= 100 and statuses[422] >= 50
