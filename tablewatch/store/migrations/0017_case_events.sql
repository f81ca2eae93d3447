-- Casework (docs/casework.md): every step taken on a finding's case, append-only.
--
-- A finding with no row here has a case that is open and unclaimed. Each row is one
-- step (claimed, released, noted, bookmarked, linked, closed, reopened) with who took
-- it (the caller's token's principal, never a field of a request body), when, and the
-- case as it stands after it: its state (open, in_review, closed), assignee,
-- disposition, money recovered, video bookmark and links. So the current case is the
-- row with the highest step, and the steps are its history.
--
-- step is numbered 1, 2, ... per finding by the one process that decides steps (the
-- casework desk, under its lock): a step written twice (a retried insert) is one row.
-- The finding's table, round, check, severity, pit and time are copied into every row,
-- so the queue and the shift report read cases without joining the findings.
CREATE TABLE IF NOT EXISTS case_events
(
    finding_id      String,
    step            UInt32,                      -- 1, 2, ... within the finding's case
    kind            LowCardinality(String),      -- claimed released noted bookmarked linked closed reopened
    at              DateTime64(3, 'UTC'),
    by              String,                      -- the principal who took the step
    role            LowCardinality(String),      -- its role then
    note            String,                      -- this step's note ('' if none)
    reason          String,                      -- reopened: why; released: why
    -- the case after this step
    state           LowCardinality(String),      -- open in_review closed
    assignee        String,                      -- in_review: who has it; '' otherwise
    disposition     LowCardinality(String),      -- closed: one of the configured list; ''
    recovered_cents Int64,                       -- money recovered, cents (0 if none)
    camera          String,                      -- the video bookmark ('' if none)
    window_start    Nullable(DateTime64(3, 'UTC')),
    window_end      Nullable(DateTime64(3, 'UTC')),
    links           Array(String),               -- related finding ids
    -- the finding, copied
    table_id        LowCardinality(String),
    round_id        String,
    check           LowCardinality(String),
    severity        LowCardinality(String),
    pit             LowCardinality(String),
    finding_ts      Nullable(DateTime64(3, 'UTC'))
)
ENGINE = ReplacingMergeTree
ORDER BY (finding_id, step);

-- The current case of every finding that has one: the state after its last step, when
-- and by whom that step was taken, and when its first was.
CREATE VIEW IF NOT EXISTS cases_v AS
SELECT
    finding_id,
    max(step) AS steps,
    argMax(state, step) AS state,
    argMax(assignee, step) AS assignee,
    argMax(disposition, step) AS disposition,
    argMax(recovered_cents, step) AS recovered_cents,
    argMax(camera, step) AS camera,
    argMax(window_start, step) AS window_start,
    argMax(window_end, step) AS window_end,
    argMax(links, step) AS links,
    argMax(kind, step) AS last_kind,
    argMax(at, step) AS updated_at,
    argMax(by, step) AS updated_by,
    min(at) AS first_at,
    any(table_id) AS table_id,
    any(round_id) AS round_id,
    any(check) AS check,
    any(severity) AS severity,
    any(pit) AS pit,
    any(finding_ts) AS finding_ts
FROM case_events
GROUP BY finding_id;
