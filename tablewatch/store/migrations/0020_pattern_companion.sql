-- The patterns across rounds (docs/patterns.md, "Live and in replay").
--
-- pattern_checkpoints: the patterns companion's saved state, one row per save: where it
-- has read the events topic to (each partition's next offset), each table's state between
-- rounds with the events of its open round, the rounds waiting to be read in order and
-- the folds' statistics (msgpack, tablewatch/patterns/companion.py). The row of the
-- highest revision is the state; its pattern findings are stored before it is, so a
-- companion killed between the two finds them again, with the same finding_id.
CREATE TABLE IF NOT EXISTS pattern_checkpoints
(
    name      LowCardinality(String),       -- the companion's: its events topic
    revision  UInt64,                       -- 1, 2, ... one per save
    saved_at  DateTime64(3, 'UTC'),
    rounds    UInt64,                       -- rounds read by the folds so far
    late      UInt64,                       -- of them, read out of order (docs/patterns.md)
    state     String
)
ENGINE = ReplacingMergeTree(revision)
ORDER BY name;

-- whether a replay run computed the patterns (tablewatch replay --patterns): a run that
-- did not is compared with the live findings without them
ALTER TABLE replay_runs ADD COLUMN IF NOT EXISTS patterns UInt8 DEFAULT 0;
