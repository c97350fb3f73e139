-- Isolation of automation tasks (docs/tasks.md): every run a task fires works in the project itself (host) or in its
-- own git worktree (worktree), as POST /api/automation/run's isolation.
ALTER TABLE automation_tasks ADD COLUMN isolation TEXT NOT NULL DEFAULT 'host';

-- Runs of the retired workflow family served as a compatibility layer over automation runs (docs/workflows.md).
-- One row per workflow run; nodes is the JSON array of its node runs (each names the automation run that carries it,
-- runs.id, in a2a_task_id), rewritten whenever a node changes. Times are epoch milliseconds.
CREATE TABLE workflow_runs (
    id TEXT PRIMARY KEY,
    workflow_id TEXT NOT NULL,
    context_id TEXT NOT NULL,
    account_id BIGINT,
    project TEXT,
    status TEXT NOT NULL,
    input TEXT NOT NULL,
    metadata TEXT NOT NULL,
    nodes TEXT NOT NULL,
    started_at BIGINT,
    finished_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX workflow_runs_account ON workflow_runs (account_id, created_at);
