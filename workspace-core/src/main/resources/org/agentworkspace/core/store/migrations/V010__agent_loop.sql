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
