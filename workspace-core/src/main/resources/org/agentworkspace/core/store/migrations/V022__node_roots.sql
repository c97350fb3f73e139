-- Where work runs (docs/scale-out.md "Where work runs"): each node records the project roots it can serve and the
-- address other nodes reach it at, so a request for a project whose folder lies on another host is forwarded there
-- (or answered with that node's address). roots is a JSON array of absolute folders (real paths); advertise_url is
-- the node's base URL (http://host:port); runner_only is 1 for a node started with --runner-only (it executes runs
-- and serves forwarded requests, no browser). NULL roots and advertise_url: a node of an older version, never chosen.
ALTER TABLE nodes ADD COLUMN advertise_url TEXT;
ALTER TABLE nodes ADD COLUMN roots TEXT;
ALTER TABLE nodes ADD COLUMN runner_only INTEGER NOT NULL DEFAULT 0;
