-- Automation tasks (core.tasks): a prompt for a provider in a project, run on a schedule by the scheduler.
-- schedule is the wire JSON ({kind: once|interval|cron, ...}); times are epoch milliseconds.
-- automation_task_runs links a task to the runs (table runs) it started, newest first by started_at.
CREATE TABLE automation_tasks (
    id TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    prompt TEXT NOT NULL,
    agent_type TEXT NOT NULL,
    model TEXT,
    project_id TEXT NOT NULL,
    schedule TEXT NOT NULL,
    status TEXT NOT NULL,
    next_run_at BIGINT,
    last_run_at BIGINT,
    last_run_status TEXT,
    run_count INTEGER NOT NULL DEFAULT 0,
    timeout_ms BIGINT,
    active_run_id TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX automation_tasks_due ON automation_tasks (status, next_run_at);

CREATE TABLE automation_task_runs (
    task_id TEXT NOT NULL REFERENCES automation_tasks (id) ON DELETE CASCADE,
    run_id TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    PRIMARY KEY (task_id, run_id)
);
