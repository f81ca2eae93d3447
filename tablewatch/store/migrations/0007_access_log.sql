-- Who read what: one row per request to a guarded endpoint of the worker (/query,
-- /metrics), answered or refused (docs/access.md, "The access log").
--
-- request_id is a random id given when the request arrives: a batch of rows written
-- again (the store failed after taking it) lands on the same keys, and access_log_v
-- shows each request once. Tokens are never here, nor anywhere in the store.
CREATE TABLE IF NOT EXISTS access_log
(
    ts            DateTime64(3, 'UTC'),        -- when the request arrived
    request_id    String,
    principal     LowCardinality(String),      -- '' when the caller is not known
    role          LowCardinality(String),      -- '' likewise
    endpoint      LowCardinality(String),      -- /query, /metrics
    request       String CODEC(ZSTD(3)),       -- the SQL as sent, or the request
    outcome       LowCardinality(String),      -- ok unauthenticated forbidden refused failed busy unavailable error
    status        UInt16,                      -- the HTTP status answered
    rows_returned UInt64,
    elapsed_ms    UInt32,
    client        String,                      -- the peer's address
    detail        String CODEC(ZSTD(3))        -- the reason of a refusal or failure
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (ts, request_id)
TTL ts + INTERVAL 5 YEAR + INTERVAL 7 DAY;

CREATE VIEW IF NOT EXISTS access_log_v AS
SELECT ts, request_id, principal, role, endpoint, request, outcome, status,
       rows_returned, elapsed_ms, client, detail
FROM access_log FINAL;
