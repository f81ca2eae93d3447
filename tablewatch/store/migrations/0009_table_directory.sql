-- The table directory: one row per configured table, written by the worker when it
-- starts (tablewatch/store/table_directory.py). It tells readers that hold no
-- configuration file (the auditor API, the dashboards) each table's game, pit and
-- cameras, and its configuration (the round reconstruction prices a stored round's wagers
-- with it). A table's newest row wins (updated_at); a table dropped from the file keeps
-- its last row, so the rounds it played stay placed on the floor. `config` holds what the
-- file says of the table, keys sorted, as JSON: never a key itself (the file names the
-- environment variables that hold a table's signing keys, not the keys).
CREATE TABLE IF NOT EXISTS table_directory
(
    table_id      LowCardinality(String),
    game          LowCardinality(String),
    pit           LowCardinality(String),      -- '' when the configuration names none
    cameras       Array(String),               -- the camera ids, in the file's order
    config        String CODEC(ZSTD(3)),       -- the table's entry in the file, as JSON
    config_sha256 String,                      -- SHA-256 of `config` (64 hex digits)
    updated_at    DateTime64(3, 'UTC')         -- when the worker wrote the row
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY table_id;

CREATE VIEW IF NOT EXISTS tables_v AS
SELECT table_id, game, pit, cameras, config, config_sha256, updated_at
FROM table_directory FINAL;
