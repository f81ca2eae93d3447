-- Every event as received: the raw JSON and where it came from.
--
-- One row per event: a Kafka redelivery or a replayed partition carries the
-- same bytes, so the same (table_id, ts, event_id), and ReplacingMergeTree
-- keeps one row per sorting key (the latest ingested_at). Parts merge in the
-- background: read through raw_events_v (FINAL) to never see a duplicate.
-- ts is in the key so that a table's events over a time window are one
-- contiguous range; the month partition keeps a duplicate in the same
-- partition as its original (same ts) and lets old months be dropped.
CREATE TABLE IF NOT EXISTS raw_events
(
    table_id        LowCardinality(String),
    event_id        String,
    seq             UInt64,
    ts              DateTime64(3, 'UTC'),
    type            LowCardinality(String),
    round_id        String,                  -- '' for table events
    payload         String CODEC(ZSTD(3)),   -- the JSON exactly as received
    kafka_partition Int32,                   -- -1 when not read from Kafka
    kafka_offset    Int64,                   -- -1 when not read from Kafka
    ingested_at     DateTime64(3, 'UTC'),
    INDEX raw_events_round_id round_id TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (table_id, ts, event_id);
