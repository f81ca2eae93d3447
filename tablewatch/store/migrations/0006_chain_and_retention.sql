-- Tamper evidence (the per-table hash chain, signed checkpoints, the public keys) and the
-- retention of every record (docs/store.md, "Tamper evidence" and "Retention").
--
-- Each event row gets its place in its table's hash chain. Rows already stored keep
-- every value and are marked "before the chain": position 0, empty hashes.
ALTER TABLE raw_events ADD COLUMN IF NOT EXISTS chain_pos UInt64 DEFAULT 0;
ALTER TABLE raw_events ADD COLUMN IF NOT EXISTS chain_prev String DEFAULT '' CODEC(ZSTD(3));
ALTER TABLE raw_events ADD COLUMN IF NOT EXISTS chain_hash String DEFAULT '' CODEC(ZSTD(3));

CREATE OR REPLACE VIEW raw_events_v AS
SELECT table_id, event_id, seq, ts, type, round_id, payload,
       kafka_partition, kafka_offset, ingested_at, chain_pos, chain_prev, chain_hash
FROM raw_events FINAL;

-- A table's chain hash at a position, signed (Ed25519) by the worker's key. Nothing is
-- replaced: the signature is in the key, so the same checkpoint written again is one
-- row and no checkpoint hides another.
CREATE TABLE IF NOT EXISTS chain_checkpoints
(
    table_id        LowCardinality(String),
    chain_pos       UInt64,
    chain_hash      String,                  -- 64 hex digits
    seq             UInt64,                  -- of the event at chain_pos
    event_ts        DateTime64(3, 'UTC'),    -- its ts
    kafka_partition Int32,
    kafka_offset    Int64,
    signed_at       DateTime64(3, 'UTC'),
    key_id          LowCardinality(String),
    signature       String                   -- 128 hex digits
)
ENGINE = ReplacingMergeTree
ORDER BY (table_id, chain_pos, signature)
TTL greatest(event_ts, signed_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY;

-- The public keys of the checkpoints. Never expire: a key outlives what it signed.
CREATE TABLE IF NOT EXISTS signing_keys
(
    key_id     String,                       -- first 16 hex digits of SHA-256(public_key)
    algorithm  LowCardinality(String),       -- ed25519
    public_key String,                       -- 64 hex digits
    created_at DateTime64(3, 'UTC')          -- first published
)
ENGINE = ReplacingMergeTree
ORDER BY (key_id, public_key);

-- Retention: 58 Pa. Code § 465a.6(c), at least 5 years. A row goes only when both its
-- event's (or round's) time and the time it was stored are over 5 years and 7 days old:
-- a controller's clock set years back, or history loaded late, never shortens it.
-- DateTime64, not toDateTime(): a DateTime past 2106 wraps around to an early date.
ALTER TABLE raw_events MODIFY TTL greatest(ts, ingested_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY;
ALTER TABLE rounds MODIFY TTL greatest(end_ts, judged_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY;
ALTER TABLE settlements MODIFY TTL greatest(start_ts, judged_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY;
ALTER TABLE findings MODIFY TTL greatest(ifNull(ts, judged_at), judged_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY
