-- round_judgements: each stored round's latest judgement, keyed by its identity
-- (table_id, round_id, start_event_id), so that the latest judgement of given rounds is a
-- primary-key lookup. `rounds` is ordered by (table_id, start_ts, ...) for time ranges,
-- where a round_id is found by its bloom filter over the table's whole history; the
-- findings list (tablewatch/api/reads.py) and the round reconstruction
-- (tablewatch/rounds/from_store.py) test a finding against its round's latest judgement
-- as `findings_v` does, for the rounds they read only. max(judged_at) is the same
-- whether a row is counted once or again, so the view (filled as rounds are stored) and
-- the fill below (once, from what is stored) may both see a round: nothing is doubled.
CREATE TABLE IF NOT EXISTS round_judgements
(
    table_id       LowCardinality(String),
    round_id       String,
    start_event_id String,
    judged_at      SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (table_id, round_id, start_event_id)
TTL toDateTime(judged_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY
-- a read looks up a page of rounds scattered over the tables and the years: granules of
-- 256 rows rather than 8,192 read 32 times fewer rows a round (the index is 1.6 M marks
-- at 400 M rounds, five years of a 200-table floor)
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS round_judgements_mv TO round_judgements AS
SELECT table_id, round_id, start_event_id, max(judged_at) AS judged_at
FROM rounds
GROUP BY table_id, round_id, start_event_id;

INSERT INTO round_judgements
SELECT table_id, round_id, start_event_id, max(judged_at) AS judged_at
FROM rounds
GROUP BY table_id, round_id, start_event_id
