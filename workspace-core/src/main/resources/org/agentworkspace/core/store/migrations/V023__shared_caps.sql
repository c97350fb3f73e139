-- Run caps and stream caps shared by the nodes of one PostgreSQL store (docs/scale-out.md "Shared limits").
-- charge_account: the account a run is charged to for the per-account caps (RunRequest.account; it may differ from
-- the owner account_id). admitted_at: set in the transaction that gives a queued run one of the shared slots
-- (global, per provider, per account), under a transaction-scoped advisory lock, so a run holds its slot from that
-- commit until its row is no longer queued or running, even before its process has started. Both stay NULL on
-- SQLite, where one engine counts in memory as before.
ALTER TABLE runs ADD COLUMN charge_account TEXT;
ALTER TABLE runs ADD COLUMN admitted_at BIGINT;
-- open_streams: one row per open connection that a per-account cap counts, on PostgreSQL only (kind 'stream': SSE and
-- NDJSON streams); the cap counts the rows of live nodes. A node deletes its own rows when it starts, and every node
-- deletes the rows of dead nodes after its heartbeat.
CREATE TABLE open_streams (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    account_id BIGINT NOT NULL,
    node_id TEXT NOT NULL,
    opened_at BIGINT NOT NULL
);
CREATE INDEX open_streams_account ON open_streams (account_id, kind);
CREATE INDEX open_streams_node ON open_streams (node_id);
