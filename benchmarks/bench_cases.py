"""The casework queue on the bench store: the /cases page and /api/v1/cases with 100,000
cases among the findings of 1 M rounds.

    python benchmarks/bench_cases.py [--rounds 1000000] [--cases 100000] [--dir DIR]
                                     [--reuse] [--requests 300] [--json]

The store is bench_api.py's (``fill``: a simulated floor of 10,000 rounds audited and
copied by SQL up to ``--rounds``), its seed floor with an error rate of 12 % so that the
findings (about 121,000 for 1 M rounds) outnumber the cases; the raw events of the seed
only (the queue reads none). Then ``--cases`` findings, drawn by a hash of their id, get
a case written by SQL into ``case_events`` as the desk writes them: 2 in 10 claimed (in
review), 1 in 10 claimed then released (open, with steps), 7 in 10 claimed, noted and
closed, by eight people; the other findings are open and unclaimed.

Measured in one process: the reads alone (``casework.reads.queue``, no HTTP) and over
HTTP (uvicorn on a thread, httpx with keep-alive, signed in by the session cookie as a
surveillance user): the page ``/cases`` (HTML) and ``/api/v1/cases`` (JSON), for the
default queue (open and in review), each state, a table, a pit, a severity, a check, an
assignee, a week's window, and each one's next page by its cursor; 50 cases a page.
Target: the page's p95 <= 200 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from html import unescape
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script from a checkout: make the repo importable
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_api  # noqa: E402
import httpx  # noqa: E402

from tablewatch.access.access_file import AccessEntry, AccessFile, save  # noqa: E402
from tablewatch.access.authenticate import FileTokenAuthenticator  # noqa: E402
from tablewatch.access.gate import Gate  # noqa: E402
from tablewatch.access.roles import Role  # noqa: E402
from tablewatch.access.tokens import hash_token, new_token  # noqa: E402
from tablewatch.api.app import create_app  # noqa: E402
from tablewatch.api.sources import ReaderPool, open_product_reader  # noqa: E402
from tablewatch.casework import reads  # noqa: E402
from tablewatch.store.client import Client, connect, open_store  # noqa: E402
from tablewatch.store.migrate import migrate  # noqa: E402

ERROR_RATE = 0.12
PEOPLE = 8
PER_PAGE = 50
NEXT = re.compile(r'<a id="next" href="([^"]+)"')


def fill_cases(client: Client, cases: int) -> dict[str, Any]:
    """``cases`` findings' cases in ``case_events`` (see the module's docstring)."""
    started = time.perf_counter()
    client.command("TRUNCATE TABLE case_events")
    client.command(
        f"""INSERT INTO case_events (finding_id, step, kind, at, by, role, note, reason, state,
            assignee, disposition, recovered_cents, camera, window_start, window_end, links,
            table_id, round_id, check, severity, pit, finding_ts)
        SELECT finding_id, s.1, s.2, addMinutes(ts0, s.1 * 7), who, 'surveillance',
            if(s.2 IN ('noted', 'closed'), 'looked at the video', ''),
            if(s.2 = 'released', 'end of shift', ''), s.3, if(s.3 = 'in_review', who, ''),
            if(s.3 = 'closed', 'confirmed: corrected at the table', ''),
            if(s.3 = 'closed', toInt64(h % 5000), 0), if(s.1 >= 2, cam, ''),
            if(s.1 >= 2, subtractSeconds(ts0, 30), NULL), if(s.1 >= 2, addSeconds(ts0, 30), NULL),
            [], table_id, round_id, check, severity, pit, ts
        FROM (
            SELECT f.finding_id AS finding_id, f.table_id AS table_id, f.round_id AS round_id,
                f.check AS check, f.severity AS severity, t.pit AS pit, t.cameras[1] AS cam,
                f.ts AS ts, ifNull(f.ts, f.judged_at) AS ts0, cityHash64(f.finding_id) AS h,
                concat('user', toString(h % {PEOPLE})) AS who,
                multiIf(h % 10 < 2, [(1, 'claimed', 'in_review')],
                        h % 10 = 2, [(1, 'claimed', 'in_review'), (2, 'released', 'open')],
                        [(1, 'claimed', 'in_review'), (2, 'noted', 'in_review'),
                         (3, 'closed', 'closed')]) AS steps
            FROM findings AS f FINAL LEFT JOIN tables_v AS t ON t.table_id = f.table_id
            ORDER BY h LIMIT {int(cases)}
        ) ARRAY JOIN steps AS s"""
    )
    client.command("OPTIMIZE TABLE case_events FINAL")
    states = client.query("SELECT state, count() FROM cases_v GROUP BY state").result_rows
    (findings,) = client.query("SELECT count() FROM findings_v").result_rows[0]
    return {
        "cases_s": round(time.perf_counter() - started, 1),
        "findings": int(findings),
        "cases_by_state": {str(k): int(v) for k, v in states},
    }


def variants(pool: ReaderPool) -> list[dict[str, str]]:
    """The filters measured (each a page of 50)."""
    rng = random.Random(7)
    tables = [str(r[0]) for r in pool.run("SELECT table_id FROM tables_v").rows]
    pits = sorted({str(r[0]) for r in pool.run("SELECT pit FROM tables_v").rows})
    (low, high) = pool.run(
        "SELECT toUnixTimestamp64Milli(min(ts)), toUnixTimestamp64Milli(max(ts)) FROM findings"
    ).rows[0]
    from tablewatch.rules.events import ms_to_ts

    week = 7 * 86_400_000
    start = rng.randint(int(low), max(int(low), int(high) - week))
    return [
        {},
        {"state": "open"},
        {"state": "in_review"},
        {"state": "closed"},
        {"state": "all"},
        {"table": rng.choice(tables)},
        {"pit": rng.choice(pits)},
        {"severity": "critical"},
        {"check": "WRONG_PAYOUT", "state": "all"},
        {"assignee": f"user{rng.randrange(PEOPLE)}", "state": "in_review"},
        {"since": ms_to_ts(start), "until": ms_to_ts(start + week)},
    ]


def measure(directory: Path, requests: int) -> dict[str, Any]:
    dsn = f"chdb:///{directory}"
    pool = ReaderPool(lambda: open_product_reader(dsn), size=4)
    token = new_token()
    access = directory.parent / "access.yaml"
    save(
        access,
        AccessFile((AccessEntry("bench", Role.SURVEILLANCE, hash_token(token), _created()),)),
    )
    app = create_app(pool, gate=Gate(FileTokenAuthenticator(access)))
    filters = variants(pool)
    out: dict[str, Any] = {"filters": len(filters)}
    from tablewatch.api.routes.cases import CaseFilters, queue_of
    from tests.api.live_server import served

    times: list[float] = []
    for i in range(requests):
        f = CaseFilters.model_validate({**filters[i % len(filters)], "limit": PER_PAGE})
        bench_api.timed(lambda f=f: reads.queue(pool, queue_of(f, None)), times)  # type: ignore[misc]
    out["queue_reads"] = bench_api._summary(times)
    print(f"  queue_reads: {out['queue_reads']}", flush=True)
    with served(app) as base, httpx.Client(base_url=base, timeout=60) as http:
        http.cookies.set("tablewatch_session", token)
        for name, path in (("page", "/cases"), ("api", "/api/v1/cases")):
            first: list[float] = []
            following: list[float] = []
            for i in range(requests):
                params = {**filters[i % len(filters)], "limit": str(PER_PAGE)}
                answer = bench_api.timed(lambda p=params, u=path: http.get(u, params=p), first)  # type: ignore[misc]
                answer.raise_for_status()
                if name == "page":
                    found = NEXT.search(answer.text)
                    after = unescape(found.group(1)) if found else None
                else:
                    cursor = answer.json()["next_cursor"]
                    after = (
                        f"{path}?{httpx.QueryParams({**params, 'cursor': cursor})}"
                        if cursor
                        else None
                    )
                if after:
                    bench_api.timed(lambda a=after: http.get(a).raise_for_status(), following)  # type: ignore[misc]
            out[f"{name}_http"] = bench_api._summary(first)
            out[f"{name}_http_next_page"] = bench_api._summary(following)
            both = first + following
            out[f"{name}_http_all"] = bench_api._summary(both)
            print(f"  {name}_http: {out[f'{name}_http']}", flush=True)
            print(f"  {name}_http_next_page: {out[f'{name}_http_next_page']}", flush=True)
    pool.close()
    return out


def _created() -> Any:
    from datetime import UTC, datetime

    return datetime(2026, 1, 1, tzinfo=UTC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--seed-rounds", type=int, default=10_000)
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument(
        "--reuse", action="store_true", help="measure the store in --dir as it is (cases too)"
    )
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    directory = (args.dir or Path(tempfile.mkdtemp(prefix="bench-cases-")) / "store").resolve()
    out: dict[str, Any] = {"store": str(directory)}
    if not args.reuse:
        print(f"filling {directory} ...", flush=True)
        out["fill"] = bench_api.fill(directory, args.rounds, args.seed_rounds, args.tables,
                                     events_until=0, error_rate=ERROR_RATE)  # fmt: skip
        with open_store(f"chdb:///{directory}") as client:
            out["fill"].update(fill_cases(client, args.cases))
        print(json.dumps(out["fill"]), flush=True)
    else:
        client = connect(f"chdb:///{directory}")
        try:
            migrate(client)
        finally:
            client.close()
    out.update(measure(directory, args.requests))
    if args.json:
        print(json.dumps(out))
        return
    for key, value in out.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
