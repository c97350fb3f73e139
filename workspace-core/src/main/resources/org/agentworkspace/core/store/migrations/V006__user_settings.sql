-- Per-user settings that are not secret (secrets live sealed in user_secrets): one JSON document per user and kind,
-- for example kind 'notification-preferences'. Written whole (upsert), so a reader never sees half a document.
CREATE TABLE user_settings (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, kind)
);
