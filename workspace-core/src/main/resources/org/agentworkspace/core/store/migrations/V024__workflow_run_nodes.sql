-- The node that executes a workflow run (its coordinator lives in that node's memory): a node that starts recovers
-- only its own unfinished workflow runs, those of nodes without a heartbeat within the lease, and those stored
-- before this column (NULL), never a live node's (docs/scale-out.md).
ALTER TABLE workflow_runs ADD COLUMN node_id TEXT;
