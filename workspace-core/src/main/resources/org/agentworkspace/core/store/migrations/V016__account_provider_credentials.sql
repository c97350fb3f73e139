-- Provider credentials of one account (issue 17): a signed-in user's own key (and endpoint) per provider, used by
-- the runs that account starts. provider_credentials (V005) keeps the service-wide credential of each provider,
-- which only administrators set; a run uses its account's own row first, then the service-wide one
-- (docs/provider-management.md §4). ciphertext is SecretBox output bound to
-- 'provider-credential:<provider>:user:<user_id>', so a row copied to another account or provider does not open.
-- Rows go with their account.
CREATE TABLE account_provider_credentials (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    ciphertext TEXT NOT NULL,
    tail TEXT NOT NULL,
    base_url TEXT,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, provider)
);
