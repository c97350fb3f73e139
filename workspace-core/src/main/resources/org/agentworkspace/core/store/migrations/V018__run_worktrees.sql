-- Isolated runs (docs/runs.md "Worktree isolation"): a run started with isolation=worktree works in its own git
-- worktree outside the project (<data>/worktrees/<id>), on its own branch aw/run-<runId>. The row is written before
-- `git worktree add` runs, so a worktree on disk always has a row (a crash between the two leaves a row the sweep
-- cleans up, never an untracked folder). state: creating, ready, running, ended (committed, folder kept on request),
-- removed (folder gone, branch kept for review), merged, discarded, failed.
CREATE TABLE run_worktrees (
    id TEXT PRIMARY KEY,
    run_id TEXT,
    account_id BIGINT,
    project TEXT,
    project_dir TEXT NOT NULL,
    branch TEXT,
    path TEXT NOT NULL,
    state TEXT NOT NULL,
    keep_worktree INTEGER NOT NULL DEFAULT 0,
    base_commit TEXT,
    head_commit TEXT,
    note TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX run_worktrees_run ON run_worktrees (run_id);
CREATE UNIQUE INDEX run_worktrees_path ON run_worktrees (path);
