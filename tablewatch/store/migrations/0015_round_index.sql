-- round_index: what the store holds of each round_id, by (table_id, round_id), in one row
-- a lookup reads by primary key: where in time its events lie, its judged rounds' latest
-- judgements, and how many finding rows name it. The round reconstruction
-- (tablewatch/rounds/from_store.py) reads it first, then the round's events as a range of
-- raw_events' primary key (table_id, ts) rather than by the round_id bloom filter over the
-- table's whole history, and its findings only when it has any.
--
-- Three materialized views fill it, one per table of records, and the fills below once
-- from what is stored; every column is an aggregate whose value is the same whatever rows
-- are counted again (a minimum, a maximum, a latest judgement per start), except the
-- finding rows, a sum, which is only ever compared with zero. So the index holds every
-- stored row, redeliveries and replays included, and may say more than the store holds
-- (a round_id a table gave twice spans both rounds), never less:
-- - first_ts, last_ts: min and max ts of the round_id's events (raw_events);
-- - judged: start_event_id -> latest judged_at in ms, of each round of the id (rounds);
-- - finding_rows: rows stored in findings for it (0: no finding was ever stored);
-- - kept: until when a row it counts may be kept (each table's TTL time, below), so that
--   an index row outlives the rows it describes.
CREATE TABLE IF NOT EXISTS round_index
(
    table_id     LowCardinality(String),
    round_id     String,
    first_ts     SimpleAggregateFunction(min, Nullable(DateTime64(3, 'UTC'))),
    last_ts      SimpleAggregateFunction(max, Nullable(DateTime64(3, 'UTC'))),
    judged       SimpleAggregateFunction(maxMap, Tuple(Array(String), Array(Int64))),
    finding_rows SimpleAggregateFunction(sum, UInt64),
    kept         SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (table_id, round_id)
TTL toDateTime(kept) + INTERVAL 5 YEAR + INTERVAL 7 DAY
-- one round is looked up at a time: granules of 256 rows read 32 times fewer than 8,192
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS round_index_events_mv TO round_index AS
SELECT table_id, round_id, min(ts) AS first_ts, max(ts) AS last_ts,
       max(greatest(ts, ingested_at)) AS kept
FROM raw_events
WHERE round_id != ''
GROUP BY table_id, round_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS round_index_rounds_mv TO round_index AS
SELECT table_id, round_id,
       maxMap(([start_event_id], [toUnixTimestamp64Milli(judged_at)])) AS judged,
       max(greatest(end_ts, judged_at)) AS kept
FROM rounds
GROUP BY table_id, round_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS round_index_findings_mv TO round_index AS
SELECT table_id, round_id, count() AS finding_rows,
       max(greatest(ifNull(ts, judged_at), judged_at)) AS kept
FROM findings
WHERE round_id != ''
GROUP BY table_id, round_id;

-- a store of years holds hundreds of millions of rounds: each fill's grouping spills to
-- disk past 1 GiB rather than hold them all in memory
INSERT INTO round_index (table_id, round_id, first_ts, last_ts, kept)
SELECT table_id, round_id, min(ts), max(ts), max(greatest(ts, ingested_at))
FROM raw_events
WHERE round_id != ''
GROUP BY table_id, round_id
SETTINGS max_bytes_before_external_group_by = 1073741824;

INSERT INTO round_index (table_id, round_id, judged, kept)
SELECT table_id, round_id, maxMap(([start_event_id], [toUnixTimestamp64Milli(judged_at)])),
       max(greatest(end_ts, judged_at))
FROM rounds
GROUP BY table_id, round_id
SETTINGS max_bytes_before_external_group_by = 1073741824;

INSERT INTO round_index (table_id, round_id, finding_rows, kept)
SELECT table_id, round_id, count(), max(greatest(ifNull(ts, judged_at), judged_at))
FROM findings
WHERE round_id != ''
GROUP BY table_id, round_id
SETTINGS max_bytes_before_external_group_by = 1073741824
