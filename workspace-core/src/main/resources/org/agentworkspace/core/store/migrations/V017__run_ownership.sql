-- Typed run ownership and the stored outcome (docs/runs.md "Ownership and outcome"). Before this, who owned a run
-- (userId), its project, task, origin (route) and session lived only in the free JSON metadata, so visibility was a
-- Java filter over the newest 1,000 runs and every listed run replayed its whole log for its outcome.
-- account_id: the owner (the caller; a task's owner); visibility is "account_id = me OR I am an administrator".
-- origin: what started it (automation, agent, ws, task, agent-loop, ci-repair, …). session_id: the CLI session the
-- run continued or started (the session↔run index; reported_session_id is what the CLI itself reported). The outcome columns are written by the run log's writer in the
-- same transaction as the events they come from; outcome_known = 1 says they were (runs from before this migration
-- have 0 and get their outcome from one replay of their log, then stored).
ALTER TABLE runs ADD COLUMN account_id BIGINT;
ALTER TABLE runs ADD COLUMN project TEXT;
ALTER TABLE runs ADD COLUMN task_id TEXT;
ALTER TABLE runs ADD COLUMN origin TEXT;
ALTER TABLE runs ADD COLUMN session_id TEXT;
ALTER TABLE runs ADD COLUMN outcome_known INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN reported_session_id TEXT;
ALTER TABLE runs ADD COLUMN success INTEGER;
ALTER TABLE runs ADD COLUMN result_text TEXT;
ALTER TABLE runs ADD COLUMN last_text TEXT;
ALTER TABLE runs ADD COLUMN usage_input BIGINT;
ALTER TABLE runs ADD COLUMN usage_output BIGINT;
ALTER TABLE runs ADD COLUMN usage_cache_read BIGINT;
ALTER TABLE runs ADD COLUMN usage_cache_write BIGINT;
ALTER TABLE runs ADD COLUMN cost DOUBLE PRECISION;
ALTER TABLE runs ADD COLUMN error_code TEXT;
ALTER TABLE runs ADD COLUMN error_message TEXT;

-- @sqlite
UPDATE runs SET
    account_id = CASE WHEN json_valid(metadata) AND json_type(metadata, '$.userId') = 'integer'
                      THEN json_extract(metadata, '$.userId') END,
    project = CASE WHEN json_valid(metadata) AND json_type(metadata, '$.projectId') = 'text'
                   THEN json_extract(metadata, '$.projectId') END,
    task_id = CASE WHEN json_valid(metadata) AND json_type(metadata, '$.taskId') = 'text'
                   THEN json_extract(metadata, '$.taskId') END,
    origin = CASE WHEN json_valid(metadata) AND json_type(metadata, '$.route') = 'text'
                  THEN json_extract(metadata, '$.route') END;
UPDATE runs SET session_id = COALESCE(
    (SELECT json_extract(e.payload, '$.data.sessionId') FROM run_events e
      WHERE e.run_id = runs.id AND e.kind = 'event' AND json_valid(e.payload)
        AND json_extract(e.payload, '$.kind') IN ('session', 'completed')
        AND json_type(e.payload, '$.data.sessionId') = 'text'
      ORDER BY e.seq LIMIT 1),
    CASE WHEN json_valid(metadata) AND json_type(metadata, '$.resumeSessionId') = 'text'
         THEN json_extract(metadata, '$.resumeSessionId') END);
-- @postgresql
UPDATE runs SET
    account_id = CASE WHEN jsonb_typeof(metadata::jsonb -> 'userId') = 'number'
                      THEN (metadata::jsonb ->> 'userId')::numeric::bigint END,
    project = CASE WHEN jsonb_typeof(metadata::jsonb -> 'projectId') = 'string'
                   THEN metadata::jsonb ->> 'projectId' END,
    task_id = CASE WHEN jsonb_typeof(metadata::jsonb -> 'taskId') = 'string'
                   THEN metadata::jsonb ->> 'taskId' END,
    origin = CASE WHEN jsonb_typeof(metadata::jsonb -> 'route') = 'string'
                  THEN metadata::jsonb ->> 'route' END;
UPDATE runs SET session_id = COALESCE(
    (SELECT e.payload::jsonb -> 'data' ->> 'sessionId' FROM run_events e
      WHERE e.run_id = runs.id AND e.kind = 'event'
        AND e.payload::jsonb ->> 'kind' IN ('session', 'completed')
        AND jsonb_typeof(e.payload::jsonb -> 'data' -> 'sessionId') = 'string'
      ORDER BY e.seq LIMIT 1),
    CASE WHEN jsonb_typeof(metadata::jsonb -> 'resumeSessionId') = 'string'
         THEN metadata::jsonb ->> 'resumeSessionId' END);
-- @all

CREATE INDEX runs_account_created ON runs (account_id, created_at, id);
CREATE INDEX runs_session_created ON runs (session_id, created_at);
CREATE INDEX runs_project_created ON runs (project, created_at);
CREATE INDEX runs_task_created ON runs (task_id, created_at);
