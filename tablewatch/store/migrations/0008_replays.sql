-- Replays (tablewatch replay): recorded events judged again by the rules engine, each
-- run and what it found kept apart from the live rounds and findings, which a replay
-- never writes (docs/replay.md).
--
-- A run is written when it starts (status 'running') and again when it ends
-- ('complete', 'interrupted' or 'failed'), each time with a higher revision:
-- replay_runs_v shows its latest row.
CREATE TABLE IF NOT EXISTS replay_runs
(
    run_id         String,                          -- 32 hex digits
    source         LowCardinality(String),          -- files, store, kafka
    range          String,                          -- the paths, the since/until, the offsets
    tables         Array(String),                   -- --tables ([]: every table)
    seen_tables    Array(String),                   -- the tables whose events it read
    rules_version  String,                          -- package version + hash of rules/**.py
    config_sha256  String,                          -- of the configuration file's bytes
    events         UInt64,
    rejected       UInt64,                          -- events the decoder refused
    rounds         UInt64,
    findings       UInt64,
    first_event_ts Nullable(DateTime64(3, 'UTC')),
    last_event_ts  Nullable(DateTime64(3, 'UTC')),
    started        DateTime64(3, 'UTC'),
    finished       Nullable(DateTime64(3, 'UTC')),
    status         LowCardinality(String),          -- running complete interrupted failed
    detail         String,                          -- why it failed or was interrupted
    revision       UInt64
)
ENGINE = ReplacingMergeTree(revision)
ORDER BY run_id;

-- Every finding of a run: run_id and the columns of findings.
CREATE TABLE IF NOT EXISTS replay_findings
(
    run_id         String,
    finding_id     String,
    table_id       LowCardinality(String),
    round_id       String,
    start_event_id String,
    check          LowCardinality(String),
    severity       LowCardinality(String),
    regulation     LowCardinality(String),
    seat           Nullable(UInt8),
    bet            LowCardinality(String),
    expected       Nullable(Int64),
    actual         Nullable(Int64),
    message        String,
    event_ids      Array(String),
    ts             Nullable(DateTime64(3, 'UTC')),
    judged_at      DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(judged_at)
ORDER BY (run_id, table_id, round_id, finding_id, start_event_id);

-- Every round a run judged (with or without findings): the rounds its diff compares.
CREATE TABLE IF NOT EXISTS replay_rounds
(
    run_id         String,
    table_id       LowCardinality(String),
    round_id       String,
    start_event_id String,
    start_ts       DateTime64(3, 'UTC'),
    end_ts         DateTime64(3, 'UTC'),
    finding_count  UInt32
)
ENGINE = ReplacingMergeTree
ORDER BY (run_id, table_id, round_id, start_event_id);

CREATE VIEW IF NOT EXISTS replay_runs_v AS
SELECT run_id, source, range, tables, seen_tables, rules_version, config_sha256, events,
       rejected, rounds, findings, first_event_ts, last_event_ts, started, finished, status,
       detail
FROM replay_runs FINAL;

CREATE VIEW IF NOT EXISTS replay_findings_v AS
SELECT run_id, finding_id, table_id, round_id, start_event_id, check, severity, regulation,
       seat, bet, expected, actual, message, event_ids, ts, judged_at
FROM replay_findings FINAL;

CREATE VIEW IF NOT EXISTS replay_rounds_v AS
SELECT run_id, table_id, round_id, start_event_id, start_ts, end_ts, finding_count
FROM replay_rounds FINAL;
