-- Requests for a run made on a node that does not run it (docs/scale-out.md "Control from any node"): cancel, a
-- stdin write, a permission answer. The requesting node inserts a row for the run's node (node_id) and sends a NOTIFY;
-- that node takes the row (state pending -> taken, a conditional update, so a request is carried out at most once),
-- carries it out and writes its outcome (done with a result, or refused with the error), then NOTIFYs the requester,
-- which reads the outcome and deletes the row. A request nobody took in time is deleted by its requester
-- (DELETE ... WHERE state = 'pending'), so it is never carried out late. SQLite (one node) never uses the table.
CREATE TABLE run_requests (
    id ${ID},
    run_id TEXT NOT NULL,
    node_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,
    result TEXT,
    created_at BIGINT NOT NULL,
    done_at BIGINT
);
CREATE INDEX run_requests_node_state ON run_requests (node_id, state);
CREATE INDEX run_requests_created ON run_requests (created_at);
