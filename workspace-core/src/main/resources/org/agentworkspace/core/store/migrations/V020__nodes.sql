-- Several nodes on one store (docs/scale-out.md).
-- shared_keys: the secrets every node must agree on (the session-token signing secret, the key that seals stored
-- secrets), created once by the first node that starts on a PostgreSQL store (INSERT ... ON CONFLICT DO NOTHING, then
-- read back), seeded from that node's existing jwt-secret and secret.key files so its tokens and sealed values stay
-- valid. value is "b64:" + base64 of the key bytes. SQLite keeps using the files only.
CREATE TABLE shared_keys (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
-- nodes: one row per server process identity (the node id is kept in <data-dir>/node-id, so a restarted node is the
-- same node). heartbeat_at is written every few seconds from the database's own clock on PostgreSQL; a node whose
-- heartbeat is older than the lease (30 s) is dead, and its unfinished runs are settled by any other node.
CREATE TABLE nodes (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid BIGINT,
    started_at BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL,
    stopped_at BIGINT
);
-- node_id: the node that executes the run (its owner for recovery and sweeps); NULL for runs stored before this.
ALTER TABLE runs ADD COLUMN node_id TEXT;
CREATE INDEX runs_node_status ON runs (node_id, status);
