-- Judged rounds and their settlement lines.
--
-- A round may be judged again (a replay, a re-audit after a rules fix): its
-- rows are inserted again with a later judged_at, the version column, and
-- replace the older ones. The keys are the identities only (no timestamp), so
-- a re-judged round always lands on the same key.
CREATE TABLE IF NOT EXISTS rounds
(
    table_id      LowCardinality(String),
    round_id      String,
    game          LowCardinality(String),
    start_ts      DateTime64(3, 'UTC'),
    end_ts        DateTime64(3, 'UTC'),
    dealer_id     LowCardinality(Nullable(String)),
    deck_id       Nullable(String),
    seats         UInt8,
    wagered       Int64,                     -- cents
    paid          Int64,                     -- cents
    voided        Bool,
    complete      Bool,
    finding_count UInt32,
    judged_at     DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(judged_at)
ORDER BY (table_id, round_id);

CREATE TABLE IF NOT EXISTS settlements
(
    table_id        LowCardinality(String),
    round_id        String,
    seat            UInt8,
    bet             LowCardinality(String),
    stake           Int64,                               -- cents
    expected_result LowCardinality(Nullable(String)),    -- win lose push returned; NULL: not priced
    expected_paid   Nullable(Int64),                     -- cents
    actual_result   LowCardinality(Nullable(String)),    -- NULL: never settled
    actual_paid     Nullable(Int64),                     -- cents
    start_ts        DateTime64(3, 'UTC'),                -- the round's
    judged_at       DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(judged_at)
ORDER BY (table_id, round_id, seat, bet);
