"""The findings CSV download is capped (``max_csv_rows``, 100,000 by default): past the cap
it answers 413 saying so, never a file cut short that would pass for the whole."""

from __future__ import annotations

import csv
import io

from fastapi import FastAPI
from fastapi.testclient import TestClient


def test_past_the_cap_the_csv_is_refused_and_within_it_every_row_comes(app: FastAPI) -> None:
    client = TestClient(app)
    whole = client.get("/findings.csv")
    assert whole.status_code == 200
    rows = list(csv.reader(io.StringIO(whole.text)))[1:]
    assert len(rows) > 5
    app.state.max_csv_rows = 5
    try:
        cut = client.get("/findings.csv")
        assert cut.status_code == 413
        assert "over 5 findings match these filters, more than one CSV holds" in cut.text
        app.state.max_csv_rows = len(rows)
        exact = client.get("/findings.csv")
        assert exact.status_code == 200
        assert list(csv.reader(io.StringIO(exact.text)))[1:] == rows
    finally:
        del app.state.max_csv_rows
