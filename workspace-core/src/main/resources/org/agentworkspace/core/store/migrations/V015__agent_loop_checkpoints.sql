-- Checkpoints the service made (docs/agent-loop.md "Workspace checkpoints"): the refs live in the project's
-- repository, which a run can write, so the service lists, restores and trusts only the checkpoints it recorded
-- here, with the commit each ref must still name. project_path is the working tree's real path (two worktrees of
-- one repository share its refs, not their checkpoints).
CREATE TABLE agent_loop_checkpoints (
    id TEXT PRIMARY KEY,
    project_path TEXT NOT NULL,
    commit_id TEXT NOT NULL,
    tree_id TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX agent_loop_checkpoints_path ON agent_loop_checkpoints (project_path);
