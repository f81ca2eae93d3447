"""Benchmark ``tablewatch dashboards check``: every panel's time on a store of >= 10 M rounds,
before the scale migration (0011-0013) and after it, measured in the same run.

    python benchmarks/bench_dashboards.py [--rounds 10000000] [--repeat 20] [--json FILE]

How the store is made (kept in ``.cache/bench/dashboards-<rounds>/``, built once):

1. a seed floor of the first two games (those of the published figures): ``Floor(20,
   4000, 5, error_rate=0.05, jackpot_rate=0.02, games=choose(FIRST_TWO))`` audited by the
   rules engine in process and written with the
   store's own rows (``StoreBatch``, ``StoreWriter``) into an embedded store migrated up
   to 0010 (the schema before the migration) with 0012 (theoretical, pay tables);
2. grown by SQL: the seed's rows are moved to ``seed_*`` tables and copied back
   ``rounds / 4000`` times with ``INSERT ... SELECT ... FROM seed_* CROSS JOIN
   numbers(copies)`` (of the lines, those of seats 1-3, and for a quarter of the rounds
   those again as seats 4-6: about 5.3 a round): copy ``k`` is table group ``k % 10``
   (table ids ``<id>.<group>``: 200 tables) and time block ``k // 10`` (every timestamp
   moved back by whole seed spans, the newest block ending now), round ids and event ids
   suffixed ``~k``. Every round, line and finding is copied; of the events, those a
   panel reads (table and procedure events, round starts, progressive settlements:
   about 4 a round, where a real store has about 50); the table directory and pay
   tables for the 200 tables;
3. ``before/``: that store as it is (the old layout: no partitions, identity keys). The
   panels read rollups that do not exist there: views of the same names compute them
   from the tables at query time (``findings_by_minute``, ``rounds_by_hour``,
   ``table_activity``, ``hold_by_round``, ``procedure_events``, and the panels' ``FINAL``
   on the last two dropped: a view takes none), which is what the panels would cost
   without the migration;
4. ``after/``: a copy of ``before/`` (without those views) migrated by ``migrate``
   (0011, 0013): the migration's own time is reported;
5. both merged, every MergeTree table ``OPTIMIZE``d once (:func:`merge_parts`, timed):
   the expansion's parts each span the whole history, where a live store's are written
   in time order and merged in the background.

Then, ``--repeat`` times after a warm-up, ``before`` and ``after`` in turn (each opened,
every panel run once through ``check_dashboards`` over its default time range ending
now, every variable All, closed): the p50 and p95 per panel, the slowest panel of each,
the targets (every panel p95 <= 500 ms, the floor's <= 200 ms).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CACHE = ROOT / ".cache" / "bench"
SEED_TABLES = 20
SEED_ROUNDS = 4000
FIRST_TWO = "let_it_ride,four_card_poker"  # the games of the published figures' floors
GROUPS = 10  # table groups: 200 tables
FLOOR_TARGET_MS = 200.0
PANEL_TARGET_MS = 500.0

ROUND_COLS = (
    "table_id, round_id, start_event_id, game, start_ts, end_ts, dealer_id, deck_id, seats, "
    "wagered, paid, voided, complete, finding_count, judged_at"
)
LINE_COLS = (
    "table_id, round_id, start_event_id, seat, bet, stake, expected_result, expected_paid, "
    "actual_result, actual_paid, start_ts, judged_at, game"
)
FINDING_COLS = (
    "finding_id, table_id, round_id, start_event_id, check, severity, regulation, seat, bet, "
    "expected, actual, message, event_ids, ts, judged_at"
)
EVENT_COLS = (
    "table_id, event_id, seq, ts, type, round_id, payload, kafka_partition, kafka_offset, "
    "ingested_at, chain_pos, chain_prev, chain_hash"
)
KEPT_EVENTS = (
    "type IN ('deck_in', 'deck_out', 'shuffle', 'stub_count', 'meter', 'device_fault',"
    " 'dealer_change', 'round_start')"
    " OR (type = 'settle' AND position(payload, 'progressive') > 0)"
)

# the rollups of 0011/0013 as views over the old tables (the "before" store)
BEFORE_VIEWS = (
    """CREATE VIEW IF NOT EXISTS findings_by_minute AS
SELECT toStartOfMinute(ifNull(ts, judged_at)) AS minute, table_id, check, severity,
       uniqExactState(finding_id) AS ids, max(ifNull(ts, judged_at)) AS last_ts
FROM findings FINAL GROUP BY minute, table_id, check, severity""",
    """CREATE VIEW IF NOT EXISTS rounds_by_hour AS
SELECT toStartOfHour(start_ts) AS hour, table_id, any(game) AS game,
       uniqExactState(round_id, start_event_id) AS rounds, max(end_ts) AS last_end
FROM rounds FINAL GROUP BY hour, table_id""",
    """CREATE VIEW IF NOT EXISTS table_activity AS
SELECT toStartOfHour(ts) AS hour, table_id, max(ts) AS last_event_ts,
       max(ingested_at) AS last_stored, max(seq) AS last_seq
FROM raw_events GROUP BY hour, table_id""",
    """CREATE VIEW IF NOT EXISTS hold_by_round AS
SELECT table_id, any(game_of) AS game, wager_of AS wager, round_id, start_event_id, start_ts,
       toUInt32(uniqExactIf(seat, seat_counted AND is_unit)) AS hands,
       sumIf(stake, seat_counted AND is_unit) AS units,
       sumIf(toFloat64(stake) * toFloat64(stake), seat_counted AND is_unit) AS unit_squares,
       sumIf(line_house_win, seat_counted) AS house_win, max(judged_at) AS judged_at
FROM
(
    SELECT table_id, round_id, start_event_id, seat, bet, stake, start_ts, judged_at,
           multiIf(bet IN ('bet1', 'bet2', 'bet3'), 'main', bet IN ('ante', 'play', 'ante_bonus'),
                   'ante', toString(bet)) AS wager_of,
           if(wager_of IN ('main', 'three_card_bonus', 'five_card_bonus'), 'let_it_ride',
              'four_card_poker') AS game_of,
           bet IN ('bet3', 'ante', 'three_card_bonus', 'five_card_bonus', 'aces_up') AS is_unit,
           multiIf(actual_result = 'lose', stake,
                   actual_result = 'win' AND bet = 'five_card_bonus',
                   stake - ifNull(actual_paid, 0),
                   actual_result = 'win', -ifNull(actual_paid, 0), 0) AS line_house_win,
           countIf(is_unit AND actual_result IN ('win', 'lose', 'push'))
               OVER (PARTITION BY table_id, round_id, start_event_id, seat, wager_of) > 0
               AS seat_counted
    FROM settlements FINAL
    WHERE bet IN ('bet1', 'bet2', 'bet3', 'ante', 'play', 'ante_bonus', 'three_card_bonus',
                  'five_card_bonus', 'aces_up')
)
GROUP BY table_id, wager, round_id, start_event_id, start_ts""",
    """CREATE VIEW IF NOT EXISTS procedure_events AS
SELECT table_id, ts, event_id, seq, type, round_id,
       JSONExtractString(payload, 'deck_id') AS deck_id,
       JSONExtractString(payload, 'dealing') AS dealing,
       JSONExtract(payload, 'card_count', 'Nullable(Int64)') AS card_count,
       if(type = 'stub_count', JSONExtract(payload, 'count', 'Nullable(Int64)'), NULL)
           AS stub_count,
       if(type = 'meter', JSONExtract(payload, 'amount', 'Nullable(Int64)'), NULL) AS amount,
       JSONExtract(payload, 'seat', 'Nullable(Int64)') AS seat,
       JSONExtractString(payload, 'bet') AS bet, JSONExtractString(payload, 'result') AS result,
       JSONExtract(payload, 'paid', 'Nullable(Int64)') AS paid,
       JSONExtractString(payload, 'paid_from') AS paid_from,
       JSONExtract(payload, 'meter', 'Nullable(Int64)') AS meter,
       JSONExtractString(payload, 'validated_by') AS validated_by,
       JSONExtractString(payload, 'dealer_id') AS dealer_id, ingested_at
FROM raw_events FINAL
WHERE type IN ('deck_in', 'deck_out', 'shuffle', 'stub_count', 'meter', 'device_fault',
               'dealer_change')
   OR (type = 'settle' AND JSONExtractString(payload, 'bet') LIKE '%progressive%')""",
)
BEFORE_REWRITES = (
    ("hold_by_round FINAL", "hold_by_round"),
    ("procedure_events FINAL", "procedure_events"),
)


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def _migrate_before(client: Any) -> None:
    from tablewatch.store.migrate import SCHEMA_MIGRATIONS_DDL, available

    client.command(SCHEMA_MIGRATIONS_DDL)
    for migration in available():
        if migration.version >= "0011" and migration.version != "0012":
            continue
        for statement in migration.statements():
            client.command(statement)
        client.insert(
            "schema_migrations",
            [[migration.version, migration.name, int(time.time() * 1000)]],
            column_names=["version", "name", "applied_at"],
        )


def _shifted(column: str) -> str:
    return f"fromUnixTimestamp64Milli(toUnixTimestamp64Milli({column}) + shift)"


def build_before(directory: Path, rounds: int) -> dict[str, Any]:
    from tablewatch import native

    native.activate()
    from tablewatch.rules.config import parse_config
    from tablewatch.sim.floor import Floor
    from tablewatch.sim.games import choose
    from tablewatch.store import theoretical
    from tablewatch.store.client import connect
    from tablewatch.store.writer import StoreWriter
    from tests.store.helpers import audit_floor

    start = time.perf_counter()
    floor = Floor(
        SEED_TABLES, SEED_ROUNDS, 5, error_rate=0.05, jackpot_rate=0.02, games=choose(FIRST_TWO)
    )
    audited = audit_floor(floor)
    configs = parse_config(floor.config)
    client = connect(f"chdb:///{directory}")
    try:
        _migrate_before(client)
        theoretical.fill(client)
        StoreWriter(client).insert_batch(audited.batch())
        for table in ("rounds", "settlements", "findings", "raw_events"):
            client.command(f"RENAME TABLE {table} TO seed_{table}")
            client.command(f"CREATE TABLE {table} AS seed_{table}")
        lo, hi = client.query("SELECT min(start_ts), max(end_ts) FROM seed_rounds").result_rows[0]
        lo_ms = int(lo.timestamp() * 1000)
        span_ms = int(hi.timestamp() * 1000) - lo_ms + 60_000
        now_ms = int(time.time() * 1000)
        copies = max(rounds // SEED_ROUNDS, 1)
        # copy k: table group k % GROUPS, block k // GROUPS back from now
        shift = f"({now_ms} - {span_ms} * (intDiv(k, {GROUPS}) + 1) - {lo_ms})"
        table = f"concat(table_id, '.', toString(k % {GROUPS}))"
        with_k = f"(SELECT number AS k, {shift} AS shift FROM numbers({copies})) AS copies"
        suffix = "concat({c}, '~', toString(k))"
        log(
            f"seed: {len(audited.rounds)} rounds, span {span_ms / 3_600_000:.1f} h; {copies} copies"
        )
        client.command(
            f"INSERT INTO rounds ({ROUND_COLS}) SELECT {table}, {suffix.format(c='round_id')},"
            f" {suffix.format(c='start_event_id')}, game, {_shifted('start_ts')},"
            f" {_shifted('end_ts')}, dealer_id, deck_id, seats, wagered, paid, voided, complete,"
            f" finding_count, {_shifted('judged_at')} FROM seed_rounds CROSS JOIN {with_k}"
        )
        log("rounds copied")
        client.command(
            f"INSERT INTO settlements ({LINE_COLS}) SELECT {table}, {suffix.format(c='round_id')},"
            f" {suffix.format(c='start_event_id')}, seat, bet, stake, expected_result,"
            f" expected_paid, actual_result, actual_paid, {_shifted('start_ts')},"
            f" {_shifted('judged_at')}, game"
            " FROM (SELECT * FROM seed_settlements WHERE seat <= 3) AS s"
            f" CROSS JOIN {with_k}"
        )
        client.command(
            f"INSERT INTO settlements ({LINE_COLS}) SELECT table_id, round_id, start_event_id,"
            " seat + 3, bet, stake, expected_result, expected_paid, actual_result, actual_paid,"
            " start_ts, judged_at, game FROM settlements"
            " WHERE seat <= 3 AND cityHash64(round_id) % 4 = 0"
        )
        log("settlements copied")
        client.command(
            f"INSERT INTO findings ({FINDING_COLS}) SELECT concat(finding_id, '~', toString(k)),"
            f" {table}, if(round_id = '', '', {suffix.format(c='round_id')}),"
            f" if(start_event_id = '', '', {suffix.format(c='start_event_id')}), check, severity,"
            f" regulation, seat, bet, expected, actual, message, event_ids,"
            f" if(ts IS NULL, NULL, {_shifted('assumeNotNull(ts)')}), {_shifted('judged_at')}"
            f" FROM seed_findings CROSS JOIN {with_k}"
        )
        log("findings copied")
        client.command(
            f"INSERT INTO raw_events ({EVENT_COLS}) SELECT {table},"
            f" {suffix.format(c='event_id')}, seq, {_shifted('ts')}, type,"
            f" if(round_id = '', '', {suffix.format(c='round_id')}), payload, kafka_partition,"
            f" kafka_offset, {_shifted('ingested_at')}, chain_pos, chain_prev, chain_hash"
            f" FROM (SELECT * FROM seed_raw_events WHERE {KEPT_EVENTS}) AS e CROSS JOIN {with_k}"
        )
        log("events copied")
        directory_rows = []
        paytable_rows = []
        for table_id, config in configs.items():
            for group in range(GROUPS):
                tid = f"{table_id}.{group}"
                directory_rows.append([tid, config.game, f"Pit {group + 1}", [], "", now_ms])
                for slot, pay in config.paytables.items():
                    paytable_rows.append([tid, slot, pay.letter, now_ms])
                if config.game == "four_card_poker":
                    paytable_rows.append([tid, "ante", "", now_ms])
        client.insert(
            "table_directory", directory_rows,
            column_names=["table_id", "game", "pit", "cameras", "config_sha256", "updated_at"],
        )  # fmt: skip
        client.insert(
            "table_paytables", paytable_rows,
            column_names=["table_id", "wager", "paytable", "updated_at"],
        )  # fmt: skip
        for table in ("rounds", "settlements", "findings", "raw_events"):
            client.command(f"DROP TABLE seed_{table}")
        client.command("OPTIMIZE TABLE rounds FINAL")
        counts = {
            t: int(client.query(f"SELECT count() FROM {t}").result_rows[0][0])
            for t in ("rounds", "settlements", "findings", "raw_events")
        }
    finally:
        client.close()
    facts: dict[str, Any] = dict(counts)
    facts["seconds"] = round(time.perf_counter() - start, 1)
    facts["span_days"] = round(span_ms * (copies // GROUPS) / 86_400_000, 1)
    return facts


def migrate_after(before: Path, after: Path) -> float:
    from tablewatch.store.client import connect
    from tablewatch.store.migrate import migrate

    if after.exists():
        shutil.rmtree(after)
    shutil.copytree(before, after, symlinks=True)
    client = connect(f"chdb:///{after}")
    try:
        start = time.perf_counter()
        applied = migrate(client)
        seconds = time.perf_counter() - start
        log(f"migrated: {applied} in {seconds:.1f} s")
    finally:
        client.close()
    return seconds


def merge_parts(directory: Path) -> float:
    """Every MergeTree table's parts merged (``OPTIMIZE ... FINAL``): the seconds taken.

    The expansion writes each copy in one insert spanning the whole history, so every part
    overlaps every other in key and time, and ``FINAL`` would merge them on each read. A
    store the worker writes holds parts in time order, merged in the background into a
    few large ones whose ranges hardly overlap, which ``FINAL`` reads without merging; the
    benchmark measures that state (the newest rows of a live store sit in a few small
    parts more)."""
    from tablewatch.store.client import connect

    client = connect(f"chdb:///{directory}")
    try:
        start = time.perf_counter()
        tables = client.query(
            "SELECT name FROM system.tables WHERE database = currentDatabase() "
            "AND engine LIKE '%MergeTree' ORDER BY name"
        ).result_rows
        for (name,) in tables:
            client.command(f"OPTIMIZE TABLE {name} FINAL")
        seconds = time.perf_counter() - start
    finally:
        client.close()
    log(f"merged {directory.name}: {len(tables)} tables in {seconds:.1f} s")
    return seconds


def add_before_views(directory: Path) -> None:
    from tablewatch.store.client import connect

    client = connect(f"chdb:///{directory}")
    try:
        for statement in BEFORE_VIEWS:
            client.command(statement)
    finally:
        client.close()


def run_all(directory: Path, before: bool) -> dict[str, float]:
    """Every panel once over its default range ending now: ms by dashboard/panel."""
    from tablewatch.dashboards.catalog import DASHBOARDS
    from tablewatch.dashboards.check import check_dashboards
    from tablewatch.store.client import connect

    client = connect(f"chdb:///{directory}")
    try:

        def run(sql: str) -> tuple[list[str], list[Any]]:
            if before:
                for old, new in BEFORE_REWRITES:
                    sql = sql.replace(old, new)
            answer = client.query(sql)
            return list(answer.column_names), list(answer.result_rows)

        results = check_dashboards(DASHBOARDS, run)
    finally:
        client.close()
    out = {}
    for r in results:
        if r.problem:
            raise RuntimeError(
                f"{'before' if before else 'after'} {r.dashboard}/{r.panel}: {r.problem}"
            )
        out[f"{r.dashboard}/{r.panel}"] = r.seconds * 1000
    return out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument(
        "--only",
        choices=["before", "after"],
        default=None,
        help="measure one store only (no pairing: for a before whose runs take minutes)",
    )
    args = parser.parse_args()

    root = CACHE / f"dashboards-{args.rounds}"
    before, after = root / "before", root / "after"
    facts_file = root / "facts.json"
    if args.rebuild and root.exists():
        shutil.rmtree(root)
    if not facts_file.exists():
        root.mkdir(parents=True, exist_ok=True)
        built = root / "built.json"
        if not built.exists():
            if before.exists():
                shutil.rmtree(before)
            built.write_text(json.dumps(build_before(before, args.rounds)))
        facts = json.loads(built.read_text())
        log(f"built: {facts}")
        facts["migration_seconds"] = round(migrate_after(before, after), 1)
        add_before_views(before)
        facts_file.write_text(json.dumps(facts))
    facts = json.loads(facts_file.read_text())
    if "merge_seconds" not in facts:
        facts["merge_seconds"] = {label: round(merge_parts(d), 1) for label, d in
                                  (("before", before), ("after", after))}  # fmt: skip
        facts_file.write_text(json.dumps(facts))

    times: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    stores = [("before", before), ("after", after)]
    if args.only:
        stores = [s for s in stores if s[0] == args.only]
    for rep in range(args.repeat + 1):
        for label, directory in stores:
            got = run_all(directory, before=label == "before")
            if rep == 0:
                continue  # warm-up
            for panel, ms in got.items():
                times[label].setdefault(panel, []).append(ms)
        log(f"repetition {rep} done")

    report: dict[str, Any] = {"store": facts, "repeat": args.repeat, "panels": {}}
    print(f"store: {facts}")
    print(f"{'panel':<66} {'before p50':>10} {'p95':>9} {'after p50':>10} {'p95':>9}  target")
    ok = True
    for panel in times["after"] or times["before"]:
        b = times["before"].get(panel) or [float("nan")]
        a = times["after"].get(panel) or [float("nan")]
        target = FLOOR_TARGET_MS if panel.startswith("tablewatch-floor/") else PANEL_TARGET_MS
        met = p95(a) <= target
        ok = ok and met
        row = {
            "before_p50_ms": round(statistics.median(b), 1), "before_p95_ms": round(p95(b), 1),
            "after_p50_ms": round(statistics.median(a), 1), "after_p95_ms": round(p95(a), 1),
            "target_ms": target, "met": met,
        }  # fmt: skip
        report["panels"][panel] = row
        print(
            f"{panel:<66} {row['before_p50_ms']:>10} {row['before_p95_ms']:>9}"
            f" {row['after_p50_ms']:>10} {row['after_p95_ms']:>9}"
            f"  {target:.0f} {'ok' if met else 'MISSED'}"
        )
    for label in [x for x, _ in stores]:
        slowest = max(times[label], key=lambda p: p95(times[label][p]))
        report[f"slowest_{label}"] = slowest
        print(f"slowest {label}: {slowest} p95 {p95(times[label][slowest]):.1f} ms")
    report["targets_met"] = ok
    print("targets met" if ok else "targets MISSED")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
