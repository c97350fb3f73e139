-- What another node needs to start a queued run again when the node that accepted it dies (docs/scale-out.md
-- "Ownership"): the provider, prompt, project folder, model, permission mode, owner, origin, task and session, as
-- JSON, never a credential (the taking node resolves the run's credential again by account, as any start does).
-- Written only on a shared (PostgreSQL) store; NULL for runs that cannot be taken over.
ALTER TABLE runs ADD COLUMN launch_spec TEXT;
