-- Accounts, API keys (digests only) and one-shot stream tickets.
-- setup_guard holds at most one row: inserting it in the same transaction as the first user makes
-- registration race-safe on SQLite and PostgreSQL alike, and once present setup never reopens.
CREATE TABLE setup_guard (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    completed_at BIGINT NOT NULL
);

CREATE TABLE users (
    id ${ID},
    username TEXT NOT NULL,
    username_key TEXT NOT NULL UNIQUE,
    email TEXT,
    password_hash TEXT NOT NULL,
    is_admin BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id ${ID},
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key_name TEXT NOT NULL,
    key_digest TEXT NOT NULL UNIQUE,
    key_prefix TEXT NOT NULL,
    key_tail TEXT NOT NULL,
    scopes TEXT NOT NULL,
    is_active BOOLEAN NOT NULL,
    legacy BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    last_used BIGINT
);
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE stream_tickets (
    digest TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    api_key_id BIGINT REFERENCES api_keys (id) ON DELETE CASCADE,
    scopes TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX stream_tickets_user ON stream_tickets (user_id);
