-- Failed logins, counted by the login throttle (LoginThrottle): one row per failure and kind ('account': the
-- account key of the username given; 'client': the client address), kept only while inside the throttle's window.
-- In the store rather than in one process, so every server on a shared PostgreSQL store counts the same failures
-- and a restart does not forgive them. The subject is a SHA-256 digest: a username field sometimes receives a
-- password.
CREATE TABLE login_failures (
    id ${ID},
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    failed_at BIGINT NOT NULL
);
CREATE INDEX login_failures_subject ON login_failures (kind, subject, failed_at);
CREATE INDEX login_failures_age ON login_failures (failed_at);
