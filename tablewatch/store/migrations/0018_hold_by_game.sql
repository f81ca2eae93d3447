-- The hold rollups count a settle line by its round's game and the game's own list of
-- priced wagers (docs/store.md, "Hold"), never by guessing the game from bet names.
--
-- settlements.game: the round's game (its table_open's), written with every line.
-- hold_lines: each registered game's priced wagers, one row per bet (which wager it
-- belongs to, whether its stake is the unit, whether a win keeps the stake: odds "for 1"),
-- written from the game descriptors by `tablewatch db migrate` and by the worker when it
-- starts (tablewatch/store/hold_lines.py); the newest row of a (game, bet) is read.
-- hold_by_round_mv (migration 0011) is replaced by hold_by_round_lines_mv, made last (it
-- writes to the relabelled table), which joins each inserted line with hold_lines on
-- (game, bet): a bet no game prices is not counted.
--
-- The rows rolled up before are relabelled: each takes its table's game from the table
-- directory (the configuration the worker loaded), else its round's (rounds.game), else
-- keeps the one it had. hold_by_round is copied into hold_by_round_0018 (whose game
-- column carries a comment: the mark of the new layout), relabelled, the two swapped and
-- the old one dropped; each step runs only while the mark says it has not been done (a
-- copy cut short is emptied before it runs again).

ALTER TABLE settlements ADD COLUMN IF NOT EXISTS game LowCardinality(String) DEFAULT '';

CREATE TABLE IF NOT EXISTS hold_lines
(
    game       LowCardinality(String),
    bet        LowCardinality(String),
    wager      LowCardinality(String),
    is_unit    Bool,
    kept       Bool,
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (game, bet);

CREATE VIEW IF NOT EXISTS hold_lines_v AS
SELECT game, bet, wager, is_unit, kept, updated_at
FROM hold_lines FINAL;

DROP VIEW IF EXISTS hold_by_round_mv;

CREATE TABLE IF NOT EXISTS hold_by_round_0018
(
    table_id       LowCardinality(String),
    game           LowCardinality(String) COMMENT 'the game of the table',
    wager          LowCardinality(String),
    round_id       String,
    start_event_id String,
    start_ts       DateTime64(3, 'UTC'),
    hands          UInt32,
    units          Int64,
    unit_squares   Float64,
    house_win      Int64,
    judged_at      DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(judged_at)
PARTITION BY toYYYYMM(start_ts)
ORDER BY (table_id, wager, start_ts, round_id, start_event_id)
TTL greatest(start_ts, judged_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY;

-- @when SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'hold_by_round' AND name = 'game' AND comment = ''
TRUNCATE TABLE IF EXISTS hold_by_round_0018;

-- @when SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'hold_by_round' AND name = 'game' AND comment = ''
INSERT INTO hold_by_round_0018 (table_id, game, wager, round_id, start_event_id, start_ts,
                                hands, units, unit_squares, house_win, judged_at)
SELECT h.table_id, multiIf(d.game != '', d.game, r.game != '', r.game, h.game) AS game,
       h.wager, h.round_id, h.start_event_id, h.start_ts, h.hands, h.units, h.unit_squares,
       h.house_win, h.judged_at
FROM hold_by_round AS h
LEFT JOIN
(
    SELECT table_id, argMax(game, updated_at) AS game FROM table_directory GROUP BY table_id
) AS d ON d.table_id = h.table_id
LEFT JOIN
(
    SELECT table_id, round_id, start_event_id, argMax(game, judged_at) AS game
    FROM rounds
    WHERE (table_id, round_id, start_event_id) IN
          (SELECT table_id, round_id, start_event_id FROM hold_by_round)
    GROUP BY table_id, round_id, start_event_id
) AS r ON r.table_id = h.table_id AND r.round_id = h.round_id
      AND r.start_event_id = h.start_event_id;

-- @when SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'hold_by_round' AND name = 'game' AND comment = ''
EXCHANGE TABLES hold_by_round AND hold_by_round_0018;

-- @when SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'hold_by_round' AND name = 'game' AND comment != ''
DROP TABLE IF EXISTS hold_by_round_0018;

CREATE MATERIALIZED VIEW IF NOT EXISTS hold_by_round_lines_mv TO hold_by_round AS
SELECT table_id, any(game_of) AS game, wager_of AS wager, round_id, start_event_id,
       start_ts, toUInt32(uniqExactIf(seat, counted_unit)) AS hands,
       sumIf(stake, counted_unit) AS units,
       sumIf(toFloat64(stake) * toFloat64(stake), counted_unit) AS unit_squares,
       sumIf(line_house_win, seat_counted) AS house_win, max(judged_at) AS judged_at
FROM
(
    SELECT *, seat_counted AND is_unit AS counted_unit
    FROM
    (
        SELECT s.table_id AS table_id, s.round_id AS round_id,
               s.start_event_id AS start_event_id, s.seat AS seat, s.stake AS stake,
               s.start_ts AS start_ts, s.judged_at AS judged_at, s.game AS game_of,
               l.wager AS wager_of, l.is_unit AS is_unit,
               multiIf(s.actual_result = 'lose', s.stake,
                       s.actual_result = 'win' AND l.kept, s.stake - ifNull(s.actual_paid, 0),
                       s.actual_result = 'win', -ifNull(s.actual_paid, 0),
                       0) AS line_house_win,
               -- the hand's unit line settled and not returned
               countIf(l.is_unit AND s.actual_result IN ('win', 'lose', 'push'))
                   OVER (PARTITION BY s.table_id, s.round_id, s.start_event_id, s.seat,
                                      l.wager) > 0 AS seat_counted
        FROM settlements AS s
        INNER JOIN
        (
            SELECT game, bet, argMax(wager, updated_at) AS wager,
                   argMax(is_unit, updated_at) AS is_unit, argMax(kept, updated_at) AS kept
            FROM hold_lines
            GROUP BY game, bet
        ) AS l ON l.game = s.game AND l.bet = s.bet
    )
)
GROUP BY table_id, wager, round_id, start_event_id, start_ts
;

-- settlements_v shows each line's game (as 0005 made it, with the new column)
CREATE OR REPLACE VIEW settlements_v AS
SELECT s.table_id AS table_id, s.round_id AS round_id, s.start_event_id AS start_event_id,
       s.seat AS seat, s.bet AS bet, s.stake AS stake,
       s.expected_result AS expected_result, s.expected_paid AS expected_paid,
       s.actual_result AS actual_result, s.actual_paid AS actual_paid,
       s.start_ts AS start_ts, s.judged_at AS judged_at, s.game AS game
FROM settlements AS s FINAL
LEFT JOIN
(
    SELECT table_id, round_id, start_event_id, max(judged_at) AS round_judged_at
    FROM rounds
    GROUP BY table_id, round_id, start_event_id
) AS r ON s.table_id = r.table_id AND s.round_id = r.round_id
      AND s.start_event_id = r.start_event_id
WHERE s.judged_at >= coalesce(r.round_judged_at, toDateTime64(0, 3, 'UTC'))
