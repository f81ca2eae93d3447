-- The checkpoints of a table form a chain of their own (tablewatch/integrity/checkpoints.py):
-- each is numbered and signs the link hash of the one before it, so a checkpoint deleted
-- from between two others is seen. A checkpoint stored before this migration keeps
-- number 0 and no link: it was signed over the v1 layout and is checked as it was.
-- Metadata only: no stored row is read or rewritten.

ALTER TABLE chain_checkpoints ADD COLUMN IF NOT EXISTS checkpoint_no UInt64 DEFAULT 0;
ALTER TABLE chain_checkpoints ADD COLUMN IF NOT EXISTS prev_checkpoint String DEFAULT '';
