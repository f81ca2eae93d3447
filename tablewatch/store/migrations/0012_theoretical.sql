-- The house edge and the per-unit standard deviation of each priced wager under each pay
-- table, for the hold panels (docs/dashboards.md, "Hold"). Rows are written by
-- `tablewatch db migrate` from the enumerations of `tablewatch edge`
-- (tablewatch/store/theoretical.py), again whenever they change: the newest row of a
-- (game, wager, paytable) is the one read. paytable '' for the Four Card Poker ante,
-- which has none (a Monte-Carlo of the learned strategy: exact 0).
CREATE TABLE IF NOT EXISTS theoretical
(
    game        LowCardinality(String),
    wager       LowCardinality(String),
    paytable    LowCardinality(String),
    edge        Float64,                 -- house edge per unit
    std_dev     Float64,                 -- standard deviation of one hand's result, per unit
    exact       Bool,
    hands       UInt64,                  -- hands enumerated, or simulated
    unit        String,                  -- what one unit is
    computed_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (game, wager, paytable);

CREATE VIEW IF NOT EXISTS theoretical_v AS
SELECT game, wager, paytable, edge, std_dev, exact, hands, unit, computed_at
FROM theoretical FINAL;

-- Each table's pay table letter per wager, written by the worker when it starts (as the
-- table directory is): the hold panels join a table's hold with its own pay table.
CREATE TABLE IF NOT EXISTS table_paytables
(
    table_id   LowCardinality(String),
    wager      LowCardinality(String),
    paytable   LowCardinality(String),
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (table_id, wager);

CREATE VIEW IF NOT EXISTS table_paytables_v AS
SELECT table_id, wager, paytable, updated_at
FROM table_paytables FINAL
