-- Findings, round-level and table-level (round_id '').
--
-- finding_id is a hash of what identifies a finding (table, round, check,
-- seat, bet, evidence event_ids): judged again, the same finding has the same
-- id and its newer row (judged_at) replaces the older one.
CREATE TABLE IF NOT EXISTS findings
(
    finding_id  String,
    table_id    LowCardinality(String),
    round_id    String,                      -- '' for table-level findings
    check       LowCardinality(String),
    severity    LowCardinality(String),
    regulation  LowCardinality(String),
    seat        Nullable(UInt8),
    bet         LowCardinality(String),      -- '' when no bet
    expected    Nullable(Int64),             -- cents
    actual      Nullable(Int64),             -- cents
    message     String,
    event_ids   Array(String),
    ts          Nullable(DateTime64(3, 'UTC')),
    judged_at   DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(judged_at)
ORDER BY (table_id, round_id, finding_id);
