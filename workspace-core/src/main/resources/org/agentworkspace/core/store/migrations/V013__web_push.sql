-- Web Push (docs/notifications.md). V013 leaves V010-V012 to families developed at the same time (gaps are allowed).
--
-- Secrets of the service itself, one row per name: 'vapid' is the VAPID key pair, public_value the base64url P-256
-- point, ciphertext the PKCS#8 private key sealed with SecretBox bound to 'server-secret:<name>'. The first node to
-- insert wins (INSERT … ON CONFLICT DO NOTHING, then read back).
CREATE TABLE server_secrets (
    name TEXT PRIMARY KEY,
    ciphertext TEXT NOT NULL,
    public_value TEXT,
    created_at BIGINT NOT NULL
);

-- Browsers' push subscriptions. sealed is SecretBox output of {"endpoint","auth"} bound to
-- 'web-push-subscription:<id>'; endpoint_digest (SHA-256 hex of the endpoint) makes one row per browser
-- subscription; endpoint_origin is what listings and logs may show.
CREATE TABLE web_push_subscriptions (
    id TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    endpoint_digest TEXT NOT NULL UNIQUE,
    endpoint_origin TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    sealed TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX web_push_subscriptions_user ON web_push_subscriptions (user_id);
