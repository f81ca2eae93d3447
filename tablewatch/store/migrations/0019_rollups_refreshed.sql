-- The rollups are brought up to date by a refresh step (tablewatch/store/rollups.py), run
-- by the worker every few seconds on its store thread and by `tablewatch db
-- refresh-rollups`, instead of by materialized views run inside every insert of facts.
--
-- stored_at: when the store received a row (the server's clock at the insert), on every
-- table a rollup reads. The worker's own stamps (ingested_at, judged_at) are not: a batch
-- retried while the store was down is inserted minutes after them. A refresh reads the
-- rows stored since its rollup's watermark (rollup_watermarks), found by stored_at's
-- minmax index in the recent parts only. The rows stored before this migration, already
-- rolled up by the views, keep the constant 1970-01-01 (the column is added with that
-- default, written into every part, and only then defaults to the insert's time: a part
-- without the column would read the current default, "now", on every read).
--
-- round_index.finding_rows becomes a maximum: a refresh may see a row again (its window
-- overlaps the previous one), and its only reader (rounds/from_store.py) asks whether it
-- is above zero, which a maximum of counts answers as the sum did.
--
-- Every statement is safe to repeat after a crash halfway: the column is written into the
-- parts only while its default is still the constant (@when); the views are dropped with
-- IF EXISTS; a watermark is written only for a rollup that has none.

-- ---- stored_at on the facts ------------------------------------------------------------
ALTER TABLE raw_events ADD COLUMN IF NOT EXISTS stored_at DateTime64(3, 'UTC') DEFAULT toDateTime64(0, 3, 'UTC');
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS stored_at DateTime64(3, 'UTC') DEFAULT toDateTime64(0, 3, 'UTC');
ALTER TABLE settlements ADD COLUMN IF NOT EXISTS stored_at DateTime64(3, 'UTC') DEFAULT toDateTime64(0, 3, 'UTC');
ALTER TABLE findings ADD COLUMN IF NOT EXISTS stored_at DateTime64(3, 'UTC') DEFAULT toDateTime64(0, 3, 'UTC');

-- @when SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'raw_events' AND name = 'stored_at' AND default_expression NOT LIKE '%now64%'
ALTER TABLE raw_events MATERIALIZE COLUMN stored_at SETTINGS mutations_sync = 2;
-- @when SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'rounds' AND name = 'stored_at' AND default_expression NOT LIKE '%now64%'
ALTER TABLE rounds MATERIALIZE COLUMN stored_at SETTINGS mutations_sync = 2;
-- @when SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'settlements' AND name = 'stored_at' AND default_expression NOT LIKE '%now64%'
ALTER TABLE settlements MATERIALIZE COLUMN stored_at SETTINGS mutations_sync = 2;
-- @when SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'findings' AND name = 'stored_at' AND default_expression NOT LIKE '%now64%'
ALTER TABLE findings MATERIALIZE COLUMN stored_at SETTINGS mutations_sync = 2;

ALTER TABLE raw_events MODIFY COLUMN stored_at DateTime64(3, 'UTC') DEFAULT now64(3);
ALTER TABLE rounds MODIFY COLUMN stored_at DateTime64(3, 'UTC') DEFAULT now64(3);
ALTER TABLE settlements MODIFY COLUMN stored_at DateTime64(3, 'UTC') DEFAULT now64(3);
ALTER TABLE findings MODIFY COLUMN stored_at DateTime64(3, 'UTC') DEFAULT now64(3);

ALTER TABLE raw_events ADD INDEX IF NOT EXISTS raw_events_stored_at stored_at TYPE minmax GRANULARITY 1;
ALTER TABLE rounds ADD INDEX IF NOT EXISTS rounds_stored_at stored_at TYPE minmax GRANULARITY 1;
ALTER TABLE settlements ADD INDEX IF NOT EXISTS settlements_stored_at stored_at TYPE minmax GRANULARITY 1;
ALTER TABLE findings ADD INDEX IF NOT EXISTS findings_stored_at stored_at TYPE minmax GRANULARITY 1;

ALTER TABLE raw_events MATERIALIZE INDEX raw_events_stored_at SETTINGS mutations_sync = 2;
ALTER TABLE rounds MATERIALIZE INDEX rounds_stored_at SETTINGS mutations_sync = 2;
ALTER TABLE settlements MATERIALIZE INDEX settlements_stored_at SETTINGS mutations_sync = 2;
ALTER TABLE findings MATERIALIZE INDEX findings_stored_at SETTINGS mutations_sync = 2;

-- ---- the views off the insert path -----------------------------------------------------
DROP VIEW IF EXISTS findings_by_minute_mv;
DROP VIEW IF EXISTS rounds_by_hour_mv;
DROP VIEW IF EXISTS table_activity_mv;
DROP VIEW IF EXISTS hold_by_round_mv;
DROP VIEW IF EXISTS hold_by_round_lines_mv;
DROP VIEW IF EXISTS procedure_events_mv;
DROP VIEW IF EXISTS round_judgements_mv;
DROP VIEW IF EXISTS round_index_events_mv;
DROP VIEW IF EXISTS round_index_rounds_mv;
DROP VIEW IF EXISTS round_index_findings_mv;

ALTER TABLE round_index MODIFY COLUMN finding_rows SimpleAggregateFunction(max, UInt64);

-- ---- the watermarks --------------------------------------------------------------------
-- One row per refresh of a rollup: every fact stored before `covered` is in the rollup
-- (a reader that must be exact reads the facts stored since in addition); `watermark` is
-- the stored_at the refresh read up to (covered = watermark less the overlap a refresh
-- reads again, for inserts still under way when it ran). The newest row of a rollup
-- counts (the greatest watermark).
CREATE TABLE IF NOT EXISTS rollup_watermarks
(
    name         LowCardinality(String),  -- the rollup's table
    watermark    DateTime64(3, 'UTC'),
    covered      DateTime64(3, 'UTC'),
    refreshed_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(watermark)
ORDER BY name;

-- every row stored so far was rolled up by the views: each rollup starts from now
INSERT INTO rollup_watermarks (name, watermark, covered)
SELECT name, now64(3), now64(3)
FROM (SELECT arrayJoin(['findings_by_minute', 'rounds_by_hour', 'table_activity',
                        'hold_by_round', 'procedure_events', 'round_judgements',
                        'round_index']) AS name)
WHERE name NOT IN (SELECT name FROM rollup_watermarks)
