-- The alerts' audit trail (docs/alerts.md): one row per thing that happened to an
-- alert: raised, notified (each receiver Alertmanager delivered it to, recorded by
-- TableWatch's own webhook receiver), escalated, acknowledged (who, note), resolved.
-- Written by `tablewatch alerter`.
--
-- event_id is a hash of the alert and what happened (the level, the receiver), and the
-- alert_id a hash of what it rests on (the finding's id; the silent table and when it
-- was last heard): an alerter that handles a finding again after a restart writes the
-- same rows, and alert_events_v shows each once.
CREATE TABLE IF NOT EXISTS alert_events
(
    event_id      String,
    alert_id      String,
    kind          LowCardinality(String),      -- raised notified escalated acknowledged resolved
    ts            DateTime64(3, 'UTC'),        -- when it happened
    alert_kind    LowCardinality(String),      -- finding, silent
    table_id      LowCardinality(String),
    pit           LowCardinality(String),
    check         LowCardinality(String),
    severity      LowCardinality(String),
    escalation    UInt8,                       -- the level raised, escalated to or notified
    shift         LowCardinality(String),
    receiver      String,                      -- notified: the Alertmanager receiver
    by            String,                      -- acknowledged: who
    note          String,                      -- acknowledged: their note; resolved: why
    finding_ids   Array(String),
    detail        String CODEC(ZSTD(3)),       -- raised: the alert's annotations and link (JSON)
    recorded_at   DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(recorded_at)
ORDER BY (alert_id, event_id)
TTL ts + INTERVAL 5 YEAR + INTERVAL 7 DAY;

CREATE VIEW IF NOT EXISTS alert_events_v AS
SELECT event_id, alert_id, kind, ts, alert_kind, table_id, pit, check, severity,
       escalation, shift, receiver, by, note, finding_ids, detail, recorded_at
FROM alert_events FINAL;
