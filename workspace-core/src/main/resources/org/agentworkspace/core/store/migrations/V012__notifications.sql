-- In-app notifications (docs/notifications.md): the newest 200 of each user, so the list and a reconnecting event
-- stream survive a restart (a self-update restarts the server). id is the SSE event id: assigned by the raising
-- server, increasing (seeded from the clock and from the largest stored id). read_at is null while unread.
CREATE TABLE notifications (
    id BIGINT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    project_name TEXT,
    session_id TEXT,
    run_id TEXT,
    created_at BIGINT NOT NULL,
    read_at BIGINT
);
CREATE INDEX notifications_user ON notifications (user_id, id);
