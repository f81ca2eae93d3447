-- procedure_events: the events the jackpot and procedure panels read, out of raw_events
-- (about one in thirty events): deck changes, shuffles, stub counts, meter readings,
-- device faults, dealer changes, and the settlements of progressive wagers, with the
-- fields those panels use taken out of the payload. Same key and version as raw_events
-- (one row per event, the latest ingested_at), filled by a materialized view as events
-- are stored and once from what is stored (a repeat writes the same keys).
CREATE TABLE IF NOT EXISTS procedure_events
(
    table_id     LowCardinality(String),
    ts           DateTime64(3, 'UTC'),
    event_id     String,
    seq          UInt64,
    type         LowCardinality(String),
    round_id     String,
    deck_id      String,
    dealing      LowCardinality(String),
    card_count   Nullable(Int64),            -- shuffle: the counting shuffler's count
    stub_count   Nullable(Int64),            -- stub_count: the cards counted
    amount       Nullable(Int64),            -- meter: cents
    seat         Nullable(Int64),
    bet          LowCardinality(String),
    result       LowCardinality(String),
    paid         Nullable(Int64),            -- settle: cents
    paid_from    LowCardinality(String),
    meter        Nullable(Int64),            -- settle: the meter when paid, cents
    validated_by String,
    dealer_id    String,
    ingested_at  DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (table_id, ts, event_id)
TTL greatest(ts, ingested_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS procedure_events_mv TO procedure_events AS
SELECT table_id, ts, event_id, seq, type, round_id,
       JSONExtractString(payload, 'deck_id') AS deck_id,
       JSONExtractString(payload, 'dealing') AS dealing,
       JSONExtract(payload, 'card_count', 'Nullable(Int64)') AS card_count,
       if(type = 'stub_count', JSONExtract(payload, 'count', 'Nullable(Int64)'), NULL) AS stub_count,
       if(type = 'meter', JSONExtract(payload, 'amount', 'Nullable(Int64)'), NULL) AS amount,
       JSONExtract(payload, 'seat', 'Nullable(Int64)') AS seat,
       JSONExtractString(payload, 'bet') AS bet,
       JSONExtractString(payload, 'result') AS result,
       JSONExtract(payload, 'paid', 'Nullable(Int64)') AS paid,
       JSONExtractString(payload, 'paid_from') AS paid_from,
       JSONExtract(payload, 'meter', 'Nullable(Int64)') AS meter,
       JSONExtractString(payload, 'validated_by') AS validated_by,
       JSONExtractString(payload, 'dealer_id') AS dealer_id,
       ingested_at
FROM raw_events
WHERE type IN ('deck_in', 'deck_out', 'shuffle', 'stub_count', 'meter', 'device_fault',
               'dealer_change')
   OR (type = 'settle' AND position(payload, 'progressive') > 0
       AND JSONExtractString(payload, 'bet') LIKE '%progressive%');

INSERT INTO procedure_events
SELECT table_id, ts, event_id, seq, type, round_id,
       JSONExtractString(payload, 'deck_id') AS deck_id,
       JSONExtractString(payload, 'dealing') AS dealing,
       JSONExtract(payload, 'card_count', 'Nullable(Int64)') AS card_count,
       if(type = 'stub_count', JSONExtract(payload, 'count', 'Nullable(Int64)'), NULL) AS stub_count,
       if(type = 'meter', JSONExtract(payload, 'amount', 'Nullable(Int64)'), NULL) AS amount,
       JSONExtract(payload, 'seat', 'Nullable(Int64)') AS seat,
       JSONExtractString(payload, 'bet') AS bet,
       JSONExtractString(payload, 'result') AS result,
       JSONExtract(payload, 'paid', 'Nullable(Int64)') AS paid,
       JSONExtractString(payload, 'paid_from') AS paid_from,
       JSONExtract(payload, 'meter', 'Nullable(Int64)') AS meter,
       JSONExtractString(payload, 'validated_by') AS validated_by,
       JSONExtractString(payload, 'dealer_id') AS dealer_id,
       ingested_at
FROM raw_events
WHERE type IN ('deck_in', 'deck_out', 'shuffle', 'stub_count', 'meter', 'device_fault',
               'dealer_change')
   OR (type = 'settle' AND position(payload, 'progressive') > 0
       AND JSONExtractString(payload, 'bet') LIKE '%progressive%')
