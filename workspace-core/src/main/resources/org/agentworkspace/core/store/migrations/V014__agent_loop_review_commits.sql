-- The review queue keeps the commit ids of its snapshots (docs/agent-loop.md "Review queue"): the refs live in the
-- repository the agent works in, so the agent can delete or move them; the items are read by these ids, and
-- record_changed is set when a ref no longer names its commit (or the record could not be completed).
ALTER TABLE agent_loop_reviews ADD COLUMN before_commit TEXT;
ALTER TABLE agent_loop_reviews ADD COLUMN after_commit TEXT;
ALTER TABLE agent_loop_reviews ADD COLUMN record_changed BOOLEAN NOT NULL DEFAULT FALSE;
