-- Credentials of the provider CLIs, one per provider for the whole service (the CLIs run as the service user).
-- ciphertext is SecretBox output bound to 'provider-credential:<provider>' (a row copied to another provider does
-- not open); tail is what the mask shows; base_url is the non-secret endpoint override (no user info allowed).
-- updated_by remembers who set it; deleting that user keeps the credential.
CREATE TABLE provider_credentials (
    provider TEXT PRIMARY KEY,
    ciphertext TEXT NOT NULL,
    tail TEXT NOT NULL,
    base_url TEXT,
    updated_by BIGINT REFERENCES users (id) ON DELETE SET NULL,
    updated_at BIGINT NOT NULL
);
