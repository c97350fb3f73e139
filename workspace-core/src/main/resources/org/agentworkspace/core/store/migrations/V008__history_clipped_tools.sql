-- Long tool payloads of messages whose record the reader can re-read on its own (JSONL lines) are stored clipped:
-- src_offset is then the byte offset of that record in the session's file, and a page of messages completes the
-- tool input and output from the file (core.index.HistoryIndex). NULL: the row is whole. Rows written before this
-- migration are whole.
ALTER TABLE history_messages ADD COLUMN src_offset BIGINT;
-- @sqlite
-- The index adds the full-text row of each message it inserts itself, in the same transaction: in bulk, the
-- AFTER INSERT trigger cost twice the CPU per row. Deletes and updates keep their triggers.
DROP TRIGGER history_messages_ai;
-- Merge 16 segments at a time (and force a merge only at 32): measured on the 2 GB benchmark history, about a tenth
-- less CPU for the full-text rows than 8/16, with searches as fast.
INSERT INTO history_fts (history_fts, rank) VALUES ('automerge', 16);
INSERT INTO history_fts (history_fts, rank) VALUES ('crisismerge', 32);
-- @all
