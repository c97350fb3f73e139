-- SQLite: the full-text index of the history moves out of this database into a file of its own next to it
-- (core.index.FullText, <name>-search.db: a contentless FTS5 table written by a thread of its own, so storing
-- messages and indexing their words run in parallel; SQLite allows one writer per file). Its rows are derived data:
-- the search file is rebuilt from history_messages when it is missing, was not closed cleanly, or belongs to
-- another copy of this database (the generation below). PostgreSQL keeps its generated tsvector column.
-- @sqlite
DROP TRIGGER history_messages_ad;
DROP TRIGGER history_messages_au;
DROP TABLE history_fts;
CREATE TABLE history_search_state (
    k TEXT PRIMARY KEY,
    v TEXT NOT NULL
);
-- @all
