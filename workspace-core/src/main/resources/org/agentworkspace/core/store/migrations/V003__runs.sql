-- Runs of provider CLIs and their append-only event logs (org.agentworkspace.core.runs, docs/runs.md).
-- A run row is changed only in the same transaction that appends its status entry, so the row and the log agree.
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    started_at BIGINT,
    finished_at BIGINT,
    exit_code INTEGER,
    reason TEXT,
    metadata TEXT NOT NULL
);
CREATE INDEX runs_status ON runs (status);
CREATE INDEX runs_created ON runs (created_at, id);

-- seq is 1, 2, 3 ... per run without gaps; readers follow a run by (run_id, seq > cursor).
CREATE TABLE run_events (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
