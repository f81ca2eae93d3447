-- replay_runs_v shows whether a run computed the patterns across rounds (the column
-- `patterns` of migration 0020): the diff reads it to leave the pattern checks out of a
-- run without them (docs/replay.md, "The diff"), and the auditor API shows it.
CREATE OR REPLACE VIEW replay_runs_v AS
SELECT run_id, source, range, tables, seen_tables, rules_version, config_sha256, events,
       rejected, rounds, findings, first_event_ts, last_event_ts, started, finished, status,
       detail, patterns
FROM replay_runs FINAL;
