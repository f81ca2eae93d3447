-- Duplicate-free reading. Query these views, never the tables.
--
-- *_v collapse the rows of one key to the newest (FINAL). A round judged
-- again may also lose settlement lines or findings it had before: a line or
-- round-level finding is current only when it was written by the round's
-- latest judgement or later (judged_at >= the round's judged_at). Writers
-- insert a round's lines and findings before its round row, so a reader
-- never misses a finding (it may briefly see the old and the new set).
-- A line or finding whose round row is not written yet is shown.
CREATE VIEW IF NOT EXISTS raw_events_v AS
SELECT table_id, event_id, seq, ts, type, round_id, payload,
       kafka_partition, kafka_offset, ingested_at
FROM raw_events FINAL;

CREATE VIEW IF NOT EXISTS rounds_v AS
SELECT table_id, round_id, game, start_ts, end_ts, dealer_id, deck_id, seats,
       wagered, paid, voided, complete, finding_count, judged_at
FROM rounds FINAL;

CREATE VIEW IF NOT EXISTS settlements_v AS
SELECT s.table_id AS table_id, s.round_id AS round_id, s.seat AS seat, s.bet AS bet,
       s.stake AS stake, s.expected_result AS expected_result,
       s.expected_paid AS expected_paid, s.actual_result AS actual_result,
       s.actual_paid AS actual_paid, s.start_ts AS start_ts, s.judged_at AS judged_at
FROM settlements AS s FINAL
LEFT JOIN
(
    SELECT table_id, round_id, max(judged_at) AS round_judged_at
    FROM rounds
    GROUP BY table_id, round_id
) AS r ON s.table_id = r.table_id AND s.round_id = r.round_id
WHERE s.judged_at >= coalesce(r.round_judged_at, toDateTime64(0, 3, 'UTC'));

CREATE VIEW IF NOT EXISTS findings_v AS
SELECT f.finding_id AS finding_id, f.table_id AS table_id, f.round_id AS round_id,
       f.check AS check, f.severity AS severity, f.regulation AS regulation,
       f.seat AS seat, f.bet AS bet, f.expected AS expected, f.actual AS actual,
       f.message AS message, f.event_ids AS event_ids, f.ts AS ts,
       f.judged_at AS judged_at
FROM findings AS f FINAL
LEFT JOIN
(
    SELECT table_id, round_id, max(judged_at) AS round_judged_at
    FROM rounds
    GROUP BY table_id, round_id
) AS r ON f.table_id = r.table_id AND f.round_id = r.round_id
WHERE f.round_id = ''
   OR f.judged_at >= coalesce(r.round_judged_at, toDateTime64(0, 3, 'UTC'));
