package org.agentworkspace.core.history;

/**
 * Outcome of {@link HistoryReader#readFrom}: where to continue next time and what the read learned.
 *
 * <p>{@code nextOffset} is opaque to callers: a byte offset for JSONL files (the end of the last complete line),
 * the file size for whole JSON documents, a {@code time_updated} watermark in epoch milliseconds for opencode and a
 * blob rowid for cursor. Pass it back unchanged. {@code corruptLines} counts records that were not valid JSON (or
 * not an object) and were skipped; {@code oversizedLines} lines longer than the reader's limit, skipped;
 * {@code partialTail} is true when the file ended in an unterminated line that did not parse: it was not consumed
 * ({@code nextOffset} stops before it) because the CLI may still be writing it.
 */
public record ReadResult(long nextOffset, SessionFacts facts, long recordsRead, long corruptLines,
        long oversizedLines, boolean partialTail) {
}
