-- The store at a year of data: month partitions, time in the sorting keys, rollups.
--
-- rounds, settlements and findings had no partitions and were ordered by their identity
-- alone, so a panel over the last hour read every row ever stored. ClickHouse cannot
-- change a table's PARTITION BY in place: each table is created anew as <name>_0011,
-- every stored row (every version, not only the newest) is copied into it, the two are
-- swapped with EXCHANGE TABLES and the old one (now <name>_0011) dropped.
--
-- The identities stay what they were. A round's start_ts is the ts of the event that
-- began it (part of its identity, start_event_id), and a line carries its round's: with
-- start_ts in the key, a round judged again still lands on its key and replaces the
-- older row (ReplacingMergeTree(judged_at), as before). A finding's ts is not part of
-- its identity: findings keep their key; their partition is the month of ts (a finding
-- without ts: 1970), and FINAL collapses a key across partitions.
--
-- Every statement is safe to repeat after a crash halfway (migrate.py runs a statement
-- preceded by "-- @when <query>" only when the query answers non-zero): a copy runs
-- only while the table still has its old layout (no partition key) and copies the same
-- rows onto the same keys; the swap likewise; the drop only once the swap is done.

-- ---- rounds ----------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS rounds_0011
(
    table_id       LowCardinality(String),
    round_id       String,
    start_event_id String,
    game           LowCardinality(String),
    start_ts       DateTime64(3, 'UTC'),
    end_ts         DateTime64(3, 'UTC'),
    dealer_id      LowCardinality(Nullable(String)),
    deck_id        Nullable(String),
    seats          UInt8,
    wagered        Int64,
    paid           Int64,
    voided         Bool,
    complete       Bool,
    finding_count  UInt32,
    judged_at      DateTime64(3, 'UTC'),
    INDEX rounds_round_id round_id TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplacingMergeTree(judged_at)
PARTITION BY toYYYYMM(start_ts)
ORDER BY (table_id, start_ts, round_id, start_event_id)
TTL greatest(end_ts, judged_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY;

-- @when SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'rounds' AND partition_key = ''
INSERT INTO rounds_0011 (table_id, round_id, start_event_id, game, start_ts, end_ts,
                         dealer_id, deck_id, seats, wagered, paid, voided, complete,
                         finding_count, judged_at)
SELECT table_id, round_id, start_event_id, game, start_ts, end_ts, dealer_id, deck_id,
       seats, wagered, paid, voided, complete, finding_count, judged_at
FROM rounds;

-- @when SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'rounds' AND partition_key = ''
EXCHANGE TABLES rounds AND rounds_0011;

-- @when SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'rounds' AND partition_key != ''
DROP TABLE IF EXISTS rounds_0011;

-- ---- settlements -----------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS settlements_0011
(
    table_id        LowCardinality(String),
    round_id        String,
    start_event_id  String,
    seat            UInt8,
    bet             LowCardinality(String),
    stake           Int64,
    expected_result LowCardinality(Nullable(String)),
    expected_paid   Nullable(Int64),
    actual_result   LowCardinality(Nullable(String)),
    actual_paid     Nullable(Int64),
    start_ts        DateTime64(3, 'UTC'),
    judged_at       DateTime64(3, 'UTC'),
    INDEX settlements_round_id round_id TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplacingMergeTree(judged_at)
PARTITION BY toYYYYMM(start_ts)
ORDER BY (table_id, start_ts, round_id, seat, bet, start_event_id)
TTL greatest(start_ts, judged_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY;

-- @when SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'settlements' AND partition_key = ''
INSERT INTO settlements_0011 (table_id, round_id, start_event_id, seat, bet, stake,
                              expected_result, expected_paid, actual_result, actual_paid,
                              start_ts, judged_at)
SELECT table_id, round_id, start_event_id, seat, bet, stake, expected_result, expected_paid,
       actual_result, actual_paid, start_ts, judged_at
FROM settlements;

-- @when SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'settlements' AND partition_key = ''
EXCHANGE TABLES settlements AND settlements_0011;

-- @when SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'settlements' AND partition_key != ''
DROP TABLE IF EXISTS settlements_0011;

-- ---- findings --------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS findings_0011
(
    finding_id     String,
    table_id       LowCardinality(String),
    round_id       String,
    start_event_id String,
    check          LowCardinality(String),
    severity       LowCardinality(String),
    regulation     LowCardinality(String),
    seat           Nullable(UInt8),
    bet            LowCardinality(String),
    expected       Nullable(Int64),
    actual         Nullable(Int64),
    message        String,
    event_ids      Array(String),
    ts             Nullable(DateTime64(3, 'UTC')),
    judged_at      DateTime64(3, 'UTC'),
    INDEX findings_ts ts TYPE minmax GRANULARITY 1
)
ENGINE = ReplacingMergeTree(judged_at)
PARTITION BY toYYYYMM(ifNull(ts, toDateTime64(0, 3, 'UTC')))
ORDER BY (table_id, round_id, finding_id, start_event_id)
TTL greatest(ifNull(ts, judged_at), judged_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY;

-- @when SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'findings' AND partition_key = ''
INSERT INTO findings_0011 (finding_id, table_id, round_id, start_event_id, check, severity,
                           regulation, seat, bet, expected, actual, message, event_ids, ts,
                           judged_at)
SELECT finding_id, table_id, round_id, start_event_id, check, severity, regulation, seat,
       bet, expected, actual, message, event_ids, ts, judged_at
FROM findings;

-- @when SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'findings' AND partition_key = ''
EXCHANGE TABLES findings AND findings_0011;

-- @when SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'findings' AND partition_key != ''
DROP TABLE IF EXISTS findings_0011;

-- ---- rollups ---------------------------------------------------------------------------
-- Filled by materialized views as rows are written, and once from what is stored (a
-- repeat adds nothing: each rollup is idempotent under rows written again).
--
-- findings_by_minute: distinct finding ids per minute (of ts; of judged_at when none),
-- table, check and severity. A finding written twice (a retried batch, a round judged
-- again) has one id: counted once. A finding that a later judgement of its round no
-- longer makes is still counted (findings_v hides it): the rollup errs towards showing.
CREATE TABLE IF NOT EXISTS findings_by_minute
(
    minute    DateTime('UTC'),
    table_id  LowCardinality(String),
    check     LowCardinality(String),
    severity  LowCardinality(String),
    ids       AggregateFunction(uniqExact, String),
    last_ts   SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(minute)
ORDER BY (minute, table_id, check, severity)
TTL minute + INTERVAL 5 YEAR + INTERVAL 7 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS findings_by_minute_mv TO findings_by_minute AS
SELECT toStartOfMinute(ifNull(ts, judged_at)) AS minute, table_id, check, severity,
       uniqExactState(finding_id) AS ids, max(ifNull(ts, judged_at)) AS last_ts
FROM findings
GROUP BY minute, table_id, check, severity;

INSERT INTO findings_by_minute
SELECT toStartOfMinute(ifNull(ts, judged_at)) AS minute, table_id, check, severity,
       uniqExactState(finding_id) AS ids, max(ifNull(ts, judged_at)) AS last_ts
FROM findings
GROUP BY minute, table_id, check, severity;

-- rounds_by_hour: distinct rounds (table_id, round_id, start_event_id) begun per hour and
-- table, with the game and the latest round end.
CREATE TABLE IF NOT EXISTS rounds_by_hour
(
    hour      DateTime('UTC'),
    table_id  LowCardinality(String),
    game      SimpleAggregateFunction(any, LowCardinality(String)),
    rounds    AggregateFunction(uniqExact, String, String),
    last_end  SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (hour, table_id)
TTL hour + INTERVAL 5 YEAR + INTERVAL 7 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS rounds_by_hour_mv TO rounds_by_hour AS
SELECT toStartOfHour(start_ts) AS hour, table_id, any(game) AS game,
       uniqExactState(round_id, start_event_id) AS rounds, max(end_ts) AS last_end
FROM rounds
GROUP BY hour, table_id;

INSERT INTO rounds_by_hour
SELECT toStartOfHour(start_ts) AS hour, table_id, any(game) AS game,
       uniqExactState(round_id, start_event_id) AS rounds, max(end_ts) AS last_end
FROM rounds
GROUP BY hour, table_id;

-- table_activity: each table's latest event (its ts and when it was stored) and the
-- events stored per hour: a controller gone silent shows as the age of its last event.
CREATE TABLE IF NOT EXISTS table_activity
(
    hour          DateTime('UTC'),
    table_id      LowCardinality(String),
    last_event_ts SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    last_stored   SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    last_seq      SimpleAggregateFunction(max, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (table_id, hour)
TTL hour + INTERVAL 5 YEAR + INTERVAL 7 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS table_activity_mv TO table_activity AS
SELECT toStartOfHour(ts) AS hour, table_id, max(ts) AS last_event_ts,
       max(ingested_at) AS last_stored, max(seq) AS last_seq
FROM raw_events
GROUP BY hour, table_id;

INSERT INTO table_activity
SELECT toStartOfHour(ts) AS hour, table_id, max(ts) AS last_event_ts,
       max(ingested_at) AS last_stored, max(seq) AS last_seq
FROM raw_events
GROUP BY hour, table_id;

-- hold_by_round: per round and priced wager, what the house won and the units staked
-- (docs/dashboards.md, "Hold"). One row per (table, wager, round): a round judged
-- again writes all its lines in one insert, so its newer row (judged_at) replaces the
-- older. The wagers: Let It Ride main (bets 1-3, per unit of Bet 3), three_card_bonus,
-- five_card_bonus; Four Card Poker ante (Ante, Play and Ante bonus lines, per unit of
-- Ante), aces_up. House win of a line: a loss its stake; a push or a return 0; a win
-- -paid, or stake - paid where the odds are "for 1" (five_card_bonus: the stake is
-- kept). A hand counts where its unit line was settled and not returned (a void).
CREATE TABLE IF NOT EXISTS hold_by_round
(
    table_id       LowCardinality(String),
    game           LowCardinality(String),
    wager          LowCardinality(String),
    round_id       String,
    start_event_id String,
    start_ts       DateTime64(3, 'UTC'),
    hands          UInt32,
    units          Int64,       -- cents staked on the unit bets of the counted hands
    unit_squares   Float64,     -- sum of each counted hand's unit stake squared (cents^2)
    house_win      Int64,       -- cents, over the counted hands
    judged_at      DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(judged_at)
PARTITION BY toYYYYMM(start_ts)
ORDER BY (table_id, wager, start_ts, round_id, start_event_id)
TTL greatest(start_ts, judged_at) + INTERVAL 5 YEAR + INTERVAL 7 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS hold_by_round_mv TO hold_by_round AS
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
        SELECT table_id, round_id, start_event_id, seat, bet, stake, start_ts, judged_at,
               multiIf(bet IN ('bet1', 'bet2', 'bet3'), 'main',
                       bet IN ('ante', 'play', 'ante_bonus'), 'ante',
                       bet IN ('three_card_bonus', 'five_card_bonus', 'aces_up'), toString(bet),
                       '') AS wager_of,
               if(wager_of IN ('main', 'three_card_bonus', 'five_card_bonus'),
                  'let_it_ride', 'four_card_poker') AS game_of,
               bet IN ('bet3', 'ante', 'three_card_bonus', 'five_card_bonus', 'aces_up') AS is_unit,
               multiIf(actual_result = 'lose', stake,
                       actual_result = 'win' AND bet = 'five_card_bonus',
                       stake - ifNull(actual_paid, 0),
                       actual_result = 'win', -ifNull(actual_paid, 0),
                       0) AS line_house_win,
               -- the hand's unit line settled and not returned
               countIf(is_unit AND actual_result IN ('win', 'lose', 'push'))
                   OVER (PARTITION BY table_id, round_id, start_event_id, seat, wager_of) > 0
                   AS seat_counted
        FROM settlements
        WHERE bet IN ('bet1', 'bet2', 'bet3', 'ante', 'play', 'ante_bonus',
                      'three_card_bonus', 'five_card_bonus', 'aces_up')
    )
)
GROUP BY table_id, wager, round_id, start_event_id, start_ts;

INSERT INTO hold_by_round
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
        SELECT table_id, round_id, start_event_id, seat, bet, stake, start_ts, judged_at,
               multiIf(bet IN ('bet1', 'bet2', 'bet3'), 'main',
                       bet IN ('ante', 'play', 'ante_bonus'), 'ante',
                       bet IN ('three_card_bonus', 'five_card_bonus', 'aces_up'), toString(bet),
                       '') AS wager_of,
               if(wager_of IN ('main', 'three_card_bonus', 'five_card_bonus'),
                  'let_it_ride', 'four_card_poker') AS game_of,
               bet IN ('bet3', 'ante', 'three_card_bonus', 'five_card_bonus', 'aces_up') AS is_unit,
               multiIf(actual_result = 'lose', stake,
                       actual_result = 'win' AND bet = 'five_card_bonus',
                       stake - ifNull(actual_paid, 0),
                       actual_result = 'win', -ifNull(actual_paid, 0),
                       0) AS line_house_win,
               countIf(is_unit AND actual_result IN ('win', 'lose', 'push'))
                   OVER (PARTITION BY table_id, round_id, start_event_id, seat, wager_of) > 0
                   AS seat_counted
        FROM settlements FINAL
        WHERE bet IN ('bet1', 'bet2', 'bet3', 'ante', 'play', 'ante_bonus',
                      'three_card_bonus', 'five_card_bonus', 'aces_up')
          AND (table_id, round_id, start_event_id, judged_at) IN
              (SELECT table_id, round_id, start_event_id, max(judged_at)
               FROM settlements GROUP BY table_id, round_id, start_event_id)
    )
)
GROUP BY table_id, wager, round_id, start_event_id, start_ts
