-- The production agent loop (core.loop). agent_loop_documents: server-wide documents an administrator replaces
-- whole, by kind (today 'release-policy'); updated_by is the administrator's user name at the time.
-- agent_loop_reviews: one row per unattended run started in a git working tree. before_ref / after_ref are the
-- snapshot refs of the working tree when the run started and ended; status is recording (running), unchanged
-- (ended without changing a file), pending (changed files, awaiting a decision), approved or rejected.
CREATE TABLE agent_loop_documents (
    kind TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    updated_by TEXT
);

CREATE TABLE agent_loop_reviews (
    run_id TEXT PRIMARY KEY,
    project_id TEXT,
    project_path TEXT NOT NULL,
    provider TEXT NOT NULL,
    route TEXT,
    task_id TEXT,
    user_id BIGINT,
    before_ref TEXT NOT NULL,
    after_ref TEXT,
    run_status TEXT,
    files_added INTEGER,
    files_modified INTEGER,
    files_deleted INTEGER,
    status TEXT NOT NULL,
    note TEXT,
    decided_by TEXT,
    decided_at BIGINT,
    created_at BIGINT NOT NULL,
    ended_at BIGINT
);
CREATE INDEX agent_loop_reviews_status ON agent_loop_reviews (status, ended_at);

-- CI repair plans: a run (table runs, route 'ci-repair') asked to draft a repair plan from the tail of a failing CI
-- log. The plan's state and text are the run's; the log itself is not kept (only its size and the lines used).
CREATE TABLE agent_loop_ci_plans (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    agent_type TEXT NOT NULL,
    model TEXT,
    failing_job TEXT,
    log_bytes BIGINT NOT NULL,
    log_lines_used INTEGER NOT NULL,
    created_by TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX agent_loop_ci_plans_project ON agent_loop_ci_plans (project_id, created_at);
