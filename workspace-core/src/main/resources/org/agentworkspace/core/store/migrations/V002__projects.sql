-- Registered project folders, and per-user secrets sealed with the data directory's secret key.
-- projects.name is derived from the real path (see ProjectRegistry) and is what routes use; the path itself is
-- not indexed (PostgreSQL b-tree entries are limited in size; the table is small).
CREATE TABLE projects (
    id ${ID},
    name TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    path TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- One sealed value per user and kind (for example 'git-token'). ciphertext is SecretBox output (versioned,
-- authenticated, bound to the user and kind); tail holds the last characters shown in masks; label is a
-- non-secret companion value (the git user name).
CREATE TABLE user_secrets (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    ciphertext TEXT NOT NULL,
    tail TEXT NOT NULL,
    label TEXT,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, kind)
);
