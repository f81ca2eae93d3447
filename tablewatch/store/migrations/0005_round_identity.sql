-- A stored round is known by where it began, not by its round_id alone.
--
-- round_id is unique per table by the protocol, but a controller that was reset may
-- give an id again; keyed (table_id, round_id), the second round replaced the first,
-- its lines and its findings. start_event_id is the event_id of the event that began
-- the round (its round_start, or its first event when none came), and part of every
-- key: rounds (table_id, round_id, start_event_id), settlements (table_id, round_id,
-- seat, bet, start_event_id), findings (table_id, round_id, finding_id,
-- start_event_id). Two rounds with one round_id are two rounds, while a round
-- delivered or judged again (same start) is still one. Table-level findings have
-- start_event_id ''.
--
-- The sorting keys grow in place: ClickHouse extends a sorting key with a column added
-- by the same ALTER, at its end (metadata only; the primary index stays the old key).
-- Every row stored before this migration then holds start_event_id '' and is copied
-- with the identity it had all along, then the '' row is deleted:
-- - a round: the event of raw_events with its table, round_id and ts = the round's
--   start_ts, its round_start first (else the lowest seq): the event that began it.
--   When raw_events does not hold it: 'no-start-event@' and start_ts in epoch ms
--   (deterministic; a round whose events were never stored);
-- - a settlement line or a finding: the identity of its round's row (table_id,
--   round_id; there was one per pair), so that what the views hid stays hidden and
--   what they showed stays shown. A line whose round row is missing derives it as a
--   round does (it carries the round's start_ts); a finding whose round row is
--   missing, and every table-level finding, keeps ''.
-- Every statement is safe to repeat: a copy reads only the rows still at '' (copying
-- one twice writes the same key twice: one row), a delete removes only rows copied.

ALTER TABLE rounds
    ADD COLUMN IF NOT EXISTS start_event_id String AFTER round_id,
    MODIFY ORDER BY (table_id, round_id, start_event_id);

ALTER TABLE settlements
    ADD COLUMN IF NOT EXISTS start_event_id String AFTER round_id,
    MODIFY ORDER BY (table_id, round_id, seat, bet, start_event_id);

ALTER TABLE findings
    ADD COLUMN IF NOT EXISTS start_event_id String AFTER round_id,
    MODIFY ORDER BY (table_id, round_id, finding_id, start_event_id);

-- rounds stored before: copied with their identity
INSERT INTO rounds (table_id, round_id, start_event_id, game, start_ts, end_ts, dealer_id,
                    deck_id, seats, wagered, paid, voided, complete, finding_count, judged_at)
SELECT r.table_id, r.round_id,
       if(s.found_start != '', s.found_start,
          concat('no-start-event@', toString(toUnixTimestamp64Milli(r.start_ts)))),
       r.game, r.start_ts, r.end_ts, r.dealer_id, r.deck_id, r.seats, r.wagered, r.paid,
       r.voided, r.complete, r.finding_count, r.judged_at
FROM (SELECT * FROM rounds FINAL WHERE start_event_id = '') AS r
LEFT JOIN
(
    SELECT table_id, round_id, ts,
           argMin(event_id, (type != 'round_start', seq, event_id)) AS found_start
    FROM raw_events FINAL
    WHERE round_id != ''
      AND (table_id, round_id, ts) IN (SELECT table_id, round_id, start_ts FROM rounds
                                       WHERE start_event_id = '')
    GROUP BY table_id, round_id, ts
) AS s ON r.table_id = s.table_id AND r.round_id = s.round_id AND r.start_ts = s.ts;

ALTER TABLE rounds DELETE WHERE start_event_id = '' SETTINGS mutations_sync = 2;

-- settlement lines stored before: their round's identity
INSERT INTO settlements (table_id, round_id, start_event_id, seat, bet, stake,
                         expected_result, expected_paid, actual_result, actual_paid,
                         start_ts, judged_at)
SELECT l.table_id, l.round_id,
       multiIf(k.known_start != '', k.known_start,
               s.found_start != '', s.found_start,
               concat('no-start-event@', toString(toUnixTimestamp64Milli(l.start_ts)))),
       l.seat, l.bet, l.stake, l.expected_result, l.expected_paid, l.actual_result,
       l.actual_paid, l.start_ts, l.judged_at
FROM (SELECT * FROM settlements FINAL WHERE start_event_id = '') AS l
LEFT JOIN
(
    SELECT table_id, round_id, any(start_event_id) AS known_start
    FROM rounds
    WHERE start_event_id != ''
    GROUP BY table_id, round_id
) AS k ON l.table_id = k.table_id AND l.round_id = k.round_id
LEFT JOIN
(
    SELECT table_id, round_id, ts,
           argMin(event_id, (type != 'round_start', seq, event_id)) AS found_start
    FROM raw_events FINAL
    WHERE round_id != ''
      AND (table_id, round_id, ts) IN (SELECT table_id, round_id, start_ts FROM settlements
                                       WHERE start_event_id = '')
    GROUP BY table_id, round_id, ts
) AS s ON l.table_id = s.table_id AND l.round_id = s.round_id AND l.start_ts = s.ts;

ALTER TABLE settlements DELETE WHERE start_event_id = '' SETTINGS mutations_sync = 2;

-- findings of a stored round: its identity (the others keep '')
INSERT INTO findings (finding_id, table_id, round_id, start_event_id, check, severity,
                      regulation, seat, bet, expected, actual, message, event_ids, ts,
                      judged_at)
SELECT f.finding_id, f.table_id, f.round_id, k.known_start, f.check, f.severity,
       f.regulation, f.seat, f.bet, f.expected, f.actual, f.message, f.event_ids, f.ts,
       f.judged_at
FROM (SELECT * FROM findings FINAL WHERE start_event_id = '' AND round_id != '') AS f
INNER JOIN
(
    SELECT table_id, round_id, any(start_event_id) AS known_start
    FROM rounds
    WHERE start_event_id != ''
    GROUP BY table_id, round_id
) AS k ON f.table_id = k.table_id AND f.round_id = k.round_id;

ALTER TABLE findings DELETE
WHERE start_event_id = '' AND round_id != ''
  AND (table_id, round_id) IN (SELECT table_id, round_id FROM rounds WHERE start_event_id != '')
SETTINGS mutations_sync = 2;

-- the views: each row once, keyed with start_event_id
CREATE OR REPLACE VIEW rounds_v AS
SELECT table_id, round_id, start_event_id, game, start_ts, end_ts, dealer_id, deck_id,
       seats, wagered, paid, voided, complete, finding_count, judged_at
FROM rounds FINAL;

CREATE OR REPLACE VIEW settlements_v AS
SELECT s.table_id AS table_id, s.round_id AS round_id, s.start_event_id AS start_event_id,
       s.seat AS seat, s.bet AS bet, s.stake AS stake,
       s.expected_result AS expected_result, s.expected_paid AS expected_paid,
       s.actual_result AS actual_result, s.actual_paid AS actual_paid,
       s.start_ts AS start_ts, s.judged_at AS judged_at
FROM settlements AS s FINAL
LEFT JOIN
(
    SELECT table_id, round_id, start_event_id, max(judged_at) AS round_judged_at
    FROM rounds
    GROUP BY table_id, round_id, start_event_id
) AS r ON s.table_id = r.table_id AND s.round_id = r.round_id
      AND s.start_event_id = r.start_event_id
WHERE s.judged_at >= coalesce(r.round_judged_at, toDateTime64(0, 3, 'UTC'));

CREATE OR REPLACE VIEW findings_v AS
SELECT f.finding_id AS finding_id, f.table_id AS table_id, f.round_id AS round_id,
       f.start_event_id AS start_event_id, f.check AS check, f.severity AS severity,
       f.regulation AS regulation, f.seat AS seat, f.bet AS bet, f.expected AS expected,
       f.actual AS actual, f.message AS message, f.event_ids AS event_ids, f.ts AS ts,
       f.judged_at AS judged_at
FROM findings AS f FINAL
LEFT JOIN
(
    SELECT table_id, round_id, start_event_id, max(judged_at) AS round_judged_at
    FROM rounds
    GROUP BY table_id, round_id, start_event_id
) AS r ON f.table_id = r.table_id AND f.round_id = r.round_id
      AND f.start_event_id = r.start_event_id
WHERE f.round_id = ''
   OR f.judged_at >= coalesce(r.round_judged_at, toDateTime64(0, 3, 'UTC'))
