package org.agentworkspace.core.history;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.SessionSummary;

/**
 * Base of the readers whose sessions are JSONL files (one JSON object per line, appended by the CLI). Reads lines
 * from a byte offset with {@link LineReader}, parses each with {@link Json#parseObject} (only the top-level fields
 * the provider needs are materialised) and hands it to a per-read {@link LineHandler}.
 *
 * <p>Line policy: blank lines are ignored; a line that is not one JSON object (garbage, binary, cut) is skipped and
 * counted as corrupt; a line longer than {@link #LINE_LIMIT} is skipped and counted as oversized;
 * a last line without '\n' that parses is consumed, one that does not is left unconsumed ({@code partialTail}) so
 * the next incremental read picks it up once the CLI has finished writing it.
 */
abstract class JsonlHistoryReader implements HistoryReader {
    /** Bytes read from each end of a large file by {@link #summarize}. */
    static final int PEEK_BYTES = 256 * 1024;
    /** Longest line a cheap summary parses; longer ones are skipped by it (a full read still parses them). */
    static final int PEEK_MAX_LINE = 4 * 1024 * 1024;

    private static final Logger LOG = System.getLogger(JsonlHistoryReader.class.getName());

    final Counters counters = new Counters();

    /** Per-read state machine turning parsed lines into messages and facts. */
    interface LineHandler {
        void line(ObjectNode line, long offset);
    }

    /** Top-level fields the handler reads (others are skipped unparsed); null for all. */
    abstract Set<String> fields();

    abstract LineHandler handler(ReadContext ctx);

    /** What {@link #forEachFile} finds, the most recently modified first: {@link #discover} for most formats. */
    final List<SessionFile> newestFirst(Path home) throws IOException {
        List<SessionFile> out = new ArrayList<>();
        forEachFile(home, out::add);
        out.sort(java.util.Comparator.comparing(SessionFile::modified).reversed());
        return out;
    }

    /** Whether the format delivers an id again when the CLI updates a message (gemini). */
    boolean redeliversIds() {
        return false;
    }

    /** Facts known before reading (e.g. a project path kept next to the file); default nothing. */
    void prime(ReadContext ctx) {
    }

    @Override
    public HistoryStats stats() {
        return counters.snapshot();
    }

    @Override
    public ReadResult readFrom(SessionFile file, long offset, HistorySink sink) throws IOException {
        ReadResult r = read(file, offset, Long.MAX_VALUE, false, false, sink);
        counters.add(r);
        return r;
    }

    @Override
    public SessionSummary summarize(SessionFile file) throws IOException {
        long size = Files.size(file.path());
        if (size <= 2L * PEEK_BYTES) {
            return scan(file);
        }
        ReadResult head = read(file, 0, PEEK_BYTES, false, true, PEEK_MAX_LINE, HistorySink.discard());
        ReadResult tail = read(file, Math.max(head.nextOffset(), size - PEEK_BYTES), Long.MAX_VALUE, true, false,
                PEEK_MAX_LINE, HistorySink.discard());
        counters.add(head);
        counters.add(tail);
        SessionFacts t = tail.facts();
        // a tail made of one long record shows no timestamp: the file's mtime is the best last activity then
        Instant last = t.lastActivity() != null ? t.lastActivity() : file.modified();
        SessionFacts merged = head.facts().merge(new SessionFacts(t.sessionId(), t.projectPath(), t.title(),
                t.titleRank(), t.firstPrompt(), t.firstActivity(), last, 0, t.subagent(), null, false, false));
        return merged.toSummary(file, false);
    }

    @Override
    public SessionSummary peek(SessionFile file) throws IOException {
        ReadResult head = read(file, 0, PEEK_BYTES, false, true, PEEK_MAX_LINE, PEEK_CHUNK, HistorySink.discard());
        SessionFacts h = head.facts();
        SessionFacts f = new SessionFacts(h.sessionId(), h.projectPath(), h.title(), h.titleRank(), h.firstPrompt(),
                h.firstActivity(), file.modified(), 0, h.subagent(), null, false, false);
        return f.toSummary(file, false);
    }

    @Override
    public boolean rereadsRecords(SessionFile file) {
        return true;
    }

    @Override
    public List<HistoryMessage> recordAt(SessionFile file, long offset) throws IOException {
        if (offset < 0 || !rereadsRecords(file)) {
            return List.of();
        }
        List<HistoryMessage> out = new ArrayList<>();
        // one line: stop after the first line ends (whatever its length, up to LINE_LIMIT); small reads, since
        // a page may re-read dozens of records
        read(file, offset, offset + 1, false, false, LINE_LIMIT, RECORD_CHUNK, new HistorySink() {
            @Override
            public void accept(HistoryMessage message) {
                out.add(message);
            }

            @Override
            public void reset() {
                out.clear();
            }
        });
        return out;
    }

    /**
     * Longest line parsed: {@link HistoryReader#MAX_LINE_BYTES}, and at most a sixth of the JVM's maximum heap (a
     * parsed line takes about three times its size at once, so a small server heap skips a giant line as oversized
     * instead of running out of memory).
     */
    static final int LINE_LIMIT = (int) Math.min(MAX_LINE_BYTES,
            Math.max(1L << 20, Runtime.getRuntime().maxMemory() / 6));

    /** First read of a single record (the buffer grows for a longer line). */
    static final int RECORD_CHUNK = 16 * 1024;

    /** Chunk size of head-only peeks (most heads are complete within the first few lines). */
    static final int PEEK_CHUNK = 8 * 1024;

    /**
     * Reads lines starting at {@code start}. {@code align}: start is not known to be a line start, so the rest of
     * the line it falls in is skipped unread. Stops after the line that crosses {@code stopAfter} bytes, or as soon
     * as the facts are complete when {@code stopWhenHeadComplete}.
     */
    ReadResult read(SessionFile file, long start, long stopAfter, boolean align, boolean stopWhenHeadComplete,
            HistorySink sink) throws IOException {
        return read(file, start, stopAfter, align, stopWhenHeadComplete, LINE_LIMIT, sink);
    }

    ReadResult read(SessionFile file, long start, long stopAfter, boolean align, boolean stopWhenHeadComplete,
            int maxLine, HistorySink sink) throws IOException {
        return read(file, start, stopAfter, align, stopWhenHeadComplete, maxLine, LineReader.CHUNK, sink);
    }

    ReadResult read(SessionFile file, long start, long stopAfter, boolean align, boolean stopWhenHeadComplete,
            int maxLine, int chunkSize, HistorySink sink) throws IOException {
        ReadContext ctx = new ReadContext(file, sink, redeliversIds());
        prime(ctx);
        LineHandler handler = handler(ctx);
        Set<String> keep = fields();
        long next = start;
        long records = 0;
        long corrupt = 0;
        long oversized = 0;
        boolean partial = false;
        try (FileChannel ch = FileChannel.open(file.path(), StandardOpenOption.READ)) {
            if (start > ch.size()) {
                LOG.log(Level.DEBUG, "offset {0} beyond the end of {1}: nothing to read", start, file.path());
                return new ReadResult(start, ctx.facts.build(), 0, 0, 0, false);
            }
            LineReader lines = new LineReader(ch, start, maxLine, chunkSize);
            try {
                if (align && start > 0) {
                    next = lines.skipLine();
                    if (next < 0) {
                        return new ReadResult(start, ctx.facts.build(), 0, 0, 0, false);
                    }
                }
                LineReader.Line line;
                while ((line = lines.next()) != null) {
                    if (line.oversized()) {
                        if (line.terminated()) {
                            oversized++;
                            next = line.end();
                        } else {
                            partial = true;
                        }
                    } else if (!line.blank()) {
                        ObjectNode node;
                        try {
                            node = Json.parseObject(line.bytes(), line.off(), line.len(), keep);
                        } catch (IOException | RuntimeException e) {
                            node = null;
                        }
                        if (node == null) {
                            if (line.terminated()) {
                                corrupt++;
                                next = line.end();
                                LOG.log(Level.DEBUG, "corrupt line at {0} in {1} skipped", line.offset(), file.path());
                            } else {
                                partial = true;
                            }
                        } else {
                            records++;
                            next = line.end();
                            handler.line(node, line.offset());
                        }
                    } else {
                        next = line.end();
                    }
                    if (line.end() >= stopAfter || (stopWhenHeadComplete && ctx.facts.headComplete())) {
                        break;
                    }
                }
            } finally {
                lines.release();
            }
        }
        if (partial) {
            LOG.log(Level.DEBUG, "unterminated last line of {0} left for a later read", file.path());
        }
        return new ReadResult(next, ctx.facts.build(), records, corrupt, oversized, partial);
    }

    /** Size and mtime of a session file, as a SessionFile. */
    static SessionFile sessionFile(String provider, Path home, Path path, String sessionId) throws IOException {
        BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
        return new SessionFile(provider, home, path, sessionId, a.size(), a.lastModifiedTime().toInstant());
    }

    /**
     * The session file at {@code path} when it is a regular file (symbolic links followed, as
     * {@link Files#isRegularFile} does), with its size and mtime from the same single stat; empty when it is
     * something else or gone.
     */
    static Optional<SessionFile> regularSessionFile(String provider, Path home, Path path, String sessionId)
            throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (java.nio.file.NoSuchFileException e) {
            return Optional.empty();
        }
        if (!a.isRegularFile()) {
            return Optional.empty();
        }
        return Optional.of(new SessionFile(provider, home, path, sessionId, a.size(),
                a.lastModifiedTime().toInstant()));
    }
}
