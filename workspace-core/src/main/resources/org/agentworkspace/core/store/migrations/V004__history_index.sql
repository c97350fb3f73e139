-- The conversation history index (core.index.HistoryIndex): what the CLIs wrote under the history homes, read
-- once and kept current, so project lists, message pages and search never parse history files per request.
-- One row per session found on disk; the file state (size, mtime, read_offset) is what the index compares to
-- notice changes. read_offset -1: only peeked (head of the file), messages not read yet.
CREATE TABLE history_sessions (
    id ${ID},
    provider TEXT NOT NULL,
    session_id TEXT NOT NULL,
    home TEXT NOT NULL,
    path TEXT NOT NULL,
    size BIGINT NOT NULL,
    mtime BIGINT NOT NULL,
    read_offset BIGINT NOT NULL,
    corrupt_lines BIGINT NOT NULL,
    project_path TEXT,
    project_name TEXT,
    title TEXT,
    title_rank INTEGER NOT NULL,
    first_prompt TEXT,
    created_at BIGINT NOT NULL,
    last_activity BIGINT NOT NULL,
    message_count BIGINT NOT NULL,
    subagent INTEGER NOT NULL,
    usage_json TEXT,
    UNIQUE (provider, session_id)
);
CREATE INDEX history_sessions_project ON history_sessions (project_name, last_activity);
-- message pages and renames name a session by its id alone (the unique key leads with the provider)
CREATE INDEX history_sessions_session ON history_sessions (session_id);

-- Messages in HistoryMessage shape; position orders them (gaps allowed). No index on msg_id: ids are unique per
-- read for most providers, and the index keeps an id -> position map while reading those that deliver an id again
-- (gemini, opencode), updating the row by (session_key, position).
CREATE TABLE history_messages (
    id ${ID},
    session_key BIGINT NOT NULL REFERENCES history_sessions (id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    msg_id TEXT NOT NULL,
    role TEXT NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    tool_name TEXT,
    tool_call_id TEXT,
    tool_input TEXT,
    tool_output TEXT,
    tool_error INTEGER NOT NULL,
    ts BIGINT,
    usage_json TEXT
);
CREATE INDEX history_messages_position ON history_messages (session_key, position);

-- A title set through the API (PUT /api/sessions/{id}/rename); survives re-indexing.
CREATE TABLE history_session_overrides (
    provider TEXT NOT NULL,
    session_id TEXT NOT NULL,
    title TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (provider, session_id)
);

-- Display name of a history-only project, and "deleted" history projects: hidden while no session is newer than
-- hidden_before (new activity brings the project back).
CREATE TABLE history_project_overrides (
    project_name TEXT PRIMARY KEY,
    display_name TEXT,
    hidden_before BIGINT,
    updated_at BIGINT NOT NULL
);

-- Full text over the message text.
-- @sqlite
CREATE VIRTUAL TABLE history_fts USING fts5(text, content='history_messages', content_rowid='id', tokenize='unicode61');
-- fewer, larger segments while bulk indexing: merge 8 segments at a time, flush pending terms at 8 MiB
INSERT INTO history_fts (history_fts, rank) VALUES ('automerge', 8);
INSERT INTO history_fts (history_fts, rank) VALUES ('hashsize', 8388608);
CREATE TRIGGER history_messages_ai AFTER INSERT ON history_messages WHEN new.text <> '' BEGIN INSERT INTO history_fts (rowid, text) VALUES (new.id, new.text); END;
CREATE TRIGGER history_messages_ad AFTER DELETE ON history_messages WHEN old.text <> '' BEGIN INSERT INTO history_fts (history_fts, rowid, text) VALUES ('delete', old.id, old.text); END;
CREATE TRIGGER history_messages_au AFTER UPDATE OF text ON history_messages BEGIN INSERT INTO history_fts (history_fts, rowid, text) SELECT 'delete', old.id, old.text WHERE old.text <> ''; INSERT INTO history_fts (rowid, text) SELECT new.id, new.text WHERE new.text <> ''; END;
-- @postgresql
ALTER TABLE history_messages ADD COLUMN text_search tsvector GENERATED ALWAYS AS (to_tsvector('simple', left(text, 200000))) STORED;
CREATE INDEX history_messages_text_search ON history_messages USING GIN (text_search);
-- @all
