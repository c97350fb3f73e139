package org.agentworkspace.core.history;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.agentworkspace.api.history.MessagePage;
import org.agentworkspace.api.history.SessionSummary;

/**
 * Reads one provider's conversation history from the files its CLI writes under a HOME directory.
 *
 * <p>Every method streams: no implementation loads a whole history file into memory (a JSONL line is held at most
 * {@link #MAX_LINE_BYTES}; a whole-document JSON chat is walked message by message with Jackson's streaming parser;
 * SQLite stores are read through cursors). A corrupt, binary or truncated record is skipped and counted
 * ({@link ReadResult}, {@link #stats()}), never fatal. Implementations are thread-safe; {@link IOException} is thrown
 * only when the file itself cannot be opened or read.
 */
public interface HistoryReader {

    /** Longest JSONL line read; longer lines are skipped and counted as oversized. */
    int MAX_LINE_BYTES = 64 * 1024 * 1024;

    /** Provider id, one of {@link org.agentworkspace.api.history.HistoryProviders#ALL}. */
    String provider();

    /**
     * The sessions under {@code home} (the user's home directory), newest first by {@link SessionFile#modified()}.
     * Cheap: lists directories (and, where the id is only inside the file, reads its first record).
     * A missing provider directory gives an empty list.
     */
    List<SessionFile> discover(Path home) throws IOException;

    /**
     * The session stored in {@code file} under {@code home}, if the path has this provider's session layout (for a
     * file watcher). Always empty for opencode, whose sessions share one database: use {@link #discover}.
     */
    Optional<SessionFile> describe(Path home, Path file) throws IOException;

    /**
     * A cheap summary: reads the session's first and last few hundred KiB only (the whole session when it is
     * small), so a large history can be listed quickly. {@code messageCount} is null unless the whole session was
     * read; a title recorded only in the middle of a large file is missed ({@link #scan} finds it).
     */
    SessionSummary summarize(SessionFile file) throws IOException;

    /**
     * The cheapest summary, for an index's first listing of many sessions: the head of the file only (until the
     * project and first prompt are found, at most {@code 256 KiB}), with {@code lastActivity} = the file's
     * modification time and no message count; a title recorded later is missed. Formats that cannot be read by
     * their head (JSON documents, SQLite stores) give {@link #summarize}.
     */
    default SessionSummary peek(SessionFile file) throws IOException {
        return summarize(file);
    }

    /** The exact summary: streams the whole session. */
    default SessionSummary scan(SessionFile file) throws IOException {
        return readFrom(file, 0, HistorySink.discard()).facts().toSummary(file, true);
    }

    /**
     * The session files {@link #discover} finds, handed to {@code action} as they are found, in no particular order,
     * instead of in a sorted list: for a caller that looks at each file once, such as an index's periodic sweep over
     * thousands of files (a list of them all outlives young collections and fills the old generation).
     */
    default void forEachFile(Path home, java.util.function.Consumer<SessionFile> action) throws IOException {
        discover(home).forEach(action);
    }

    /**
     * Streams the session from {@code offset} (0 = the beginning; otherwise a {@link ReadResult#nextOffset()} of an
     * earlier read) to the current end, delivering messages to {@code sink} in chronological order, and returns
     * where to continue. For JSONL files the offset is a byte offset and only lines appended since are read.
     */
    ReadResult readFrom(SessionFile file, long offset, HistorySink sink) throws IOException;

    /**
     * A page of messages, counted from the newest as {@link MessagePage} documents. Streams the session keeping only
     * {@code offset + limit} messages in memory.
     */
    default MessagePage messages(SessionFile file, int limit, int offset) throws IOException {
        if (limit < 0 || offset < 0) {
            throw new IllegalArgumentException("limit and offset must not be negative");
        }
        TailPager pager = new TailPager((long) limit + offset, false);
        readFrom(file, 0, pager);
        return pager.page(limit, offset);
    }

    /**
     * Whether {@link #recordAt} can re-read, on its own, the record a message of this file was delivered from (its
     * {@link org.agentworkspace.api.history.HistoryMessage#nativeOffset()}). An index may then keep only the head of
     * long tool payloads and complete them from the file when a page is read.
     */
    default boolean rereadsRecords(SessionFile file) {
        return false;
    }

    /**
     * The messages delivered from the one record that starts at byte {@code offset} of the file (the
     * {@code nativeOffset} they were delivered with), read on their own; empty when the format cannot
     * ({@link #rereadsRecords} is false) or no record starts there. Ids are the ones a full read delivers; a message
     * whose shape depends on earlier records may be missing, and callers fall back to a full read then.
     */
    default List<org.agentworkspace.api.history.HistoryMessage> recordAt(SessionFile file, long offset)
            throws IOException {
        return List.of();
    }

    /** Counters over every read this reader made. */
    HistoryStats stats();
}
