package org.agentworkspace.core.index;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.core.history.HistoryReader;
import org.agentworkspace.core.history.HistoryReaders;
import org.agentworkspace.core.history.HistorySink;
import org.agentworkspace.core.history.ReadResult;
import org.agentworkspace.core.history.SessionFacts;
import org.agentworkspace.core.history.SessionFile;
import org.agentworkspace.core.store.Store;

import static org.agentworkspace.core.index.HistoryIndex.CLIP_CHARS;
import static org.agentworkspace.core.index.IndexState.CHUNK_CHARS;
import static org.agentworkspace.core.index.IndexState.CHUNK_ROWS;
import static org.agentworkspace.core.index.IndexState.IN_FLIGHT_KIB;
import static org.agentworkspace.core.index.HistoryIndex.WORKERS;
import static org.agentworkspace.core.index.IndexState.FILE_PROVIDERS;
import static org.agentworkspace.core.index.IndexState.clip;
import static org.agentworkspace.core.index.IndexState.key;
import static org.agentworkspace.core.index.IndexState.len;
import static org.agentworkspace.core.index.IndexState.usage;

import org.agentworkspace.core.index.IndexState.Known;
import org.agentworkspace.core.index.Op.Chunk;
import org.agentworkspace.core.index.Op.Done;
import org.agentworkspace.core.index.Op.DropMessages;
import org.agentworkspace.core.index.Op.InsertMessage;
import org.agentworkspace.core.index.Op.MarkUnread;
import org.agentworkspace.core.index.Op.UpdateMessage;

/**
 * Phase 2 of the {@link HistoryIndex}, reading: {@link HistoryIndex#WORKERS} threads read each new or changed session
 * from its stored offset and hand its writes to the {@link IndexWriter} in chunks.
 */
final class IndexReader {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    private final IndexState st;
    private final Store store;
    private final HistoryReaders readers;
    private final Map<String, Known> known;
    private final LinkedBlockingDeque<Long> queue;
    private final Map<Long, SessionFile> pending;
    private final Set<Long> running;
    private final AtomicLong version;
    private final java.util.concurrent.LinkedBlockingQueue<Chunk> inbox;
    private final java.util.concurrent.Semaphore inFlight;
    private final AtomicLong readNanos;

    IndexReader(IndexState st) {
        this.st = st;
        this.store = st.store;
        this.readers = st.readers;
        this.known = st.known;
        this.queue = st.queue;
        this.pending = st.pending;
        this.running = st.running;
        this.version = st.version;
        this.inbox = st.inbox;
        this.inFlight = st.inFlight;
        this.readNanos = st.readNanos;
    }

    // ------------------------------------------------------------------ phase 2

    /**
     * A reader thread: takes sessions off the queue, reads each from its stored offset and hands what is to be
     * written to the writer thread in chunks. Parsing runs on up to {@link HistoryIndex#WORKERS} threads beside the one thread
     * that writes, so the store sees a single writer with large transactions.
     */
    void readLoop() {
        while (!st.closed) {
            Long key;
            try {
                key = queue.pollFirst(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            try {
                if (key == null) {
                    st.checkReady();
                    continue;
                }
                SessionFile f = pending.remove(key);
                if (f == null) {
                    continue;
                }
                if (!running.add(key)) {
                    // the writer has not stored this session's previous read yet
                    if (pending.putIfAbsent(key, f) == null) {
                        queue.addLast(key);
                    }
                    Thread.sleep(5);
                    continue;
                }
                boolean handedOver = false;
                try {
                    handedOver = readSession(key, f);
                } finally {
                    if (!handedOver) {
                        running.remove(key);
                    }
                }
            } catch (InterruptedException | Interrupted e) {
                break;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "history index read failed", e);
            }
        }
    }

    /**
     * Reads the session and hands its writes, ending with its {@link Done}, to the writer (which releases the
     * session from {@code running} once they are stored). False when the index no longer knows the session.
     */
    private boolean readSession(long key, SessionFile f) throws InterruptedException {
        Known kn = known.get(key(f.provider(), f.sessionId()));
        if (kn == null || kn.key() != key) {
            return false;
        }
        HistoryReader reader = readers.get(f.provider());
        long offset = kn.offset();
        boolean rewrite = offset > 0 && FILE_PROVIDERS.contains(f.provider()) && f.size() < offset;
        long from = offset < 0 || rewrite ? 0 : offset;
        Outbox out = new Outbox(redelivers(f));
        if (from == 0) {
            // a first read, a rewrite, or a read cut short earlier: start from an empty session
            out.add(new DropMessages(key));
        } else {
            // an incremental read: until its Done is stored the row says "read from the start", so a read cut short
            // (crash, shutdown) between its chunks is redone from the start instead of appending twice
            out.add(new MarkUnread(key));
        }
        SessionFacts base = from > 0 ? loadFacts(key, f.provider()) : null;
        long[] position = {from > 0 ? nextPosition(key) : 0};
        long[] count = {from > 0 ? kn.messages() : 0};
        boolean clip = reader.rereadsRecords(f);
        // providers that deliver an id again (an updated message): id -> position of this session's messages
        Map<String, Long> ids = redelivers(f) ? (from > 0 ? loadIds(key) : new HashMap<>()) : null;
        HistorySink sink = new HistorySink() {
            @Override
            public void accept(HistoryMessage m) {
                Long at = ids == null ? null : ids.get(m.id());
                // long tool payloads are clipped here, so what waits for the writer is as small as what it stores
                long src = clip ? clippedAt(m) : -1;
                HistoryMessage stored = src >= 0 ? clipped(m) : m;
                if (at != null) {
                    // an update of a message not handed over yet replaces its insert (no UPDATE, no full-text churn)
                    if (!out.replaceInsert(at, stored, src)) {
                        out.add(new UpdateMessage(key, at, stored, src));
                    }
                } else {
                    if (ids != null) {
                        ids.put(m.id(), position[0]);
                    }
                    out.add(new InsertMessage(key, position[0]++, stored, src));
                    count[0]++;
                }
                if (out.full()) {
                    out.send();
                }
            }

            @Override
            public void reset() {
                out.add(new DropMessages(key));
                count[0] = 0;
                if (ids != null) {
                    ids.clear();
                }
            }
        };
        ReadResult r;
        try {
            r = reader.readFrom(f, from, sink);
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            if (e instanceof Interrupted i) {
                throw i;
            }
            // a record too large for this heap fails alone (its arrays are garbage now); the index goes on
            LOG.log(e instanceof OutOfMemoryError ? Level.WARNING : Level.DEBUG, "cannot read {0}: {1}", f.path(),
                    e.toString());
            // unreadable now: remember the file state so it is not retried until it changes; a read that already
            // handed over messages is redone from the start next time
            out.add(new Done(key, f, out.sentMessages ? -1 : offset, null, 0, false, kn.messages()));
            out.send();
            return true;
        }
        SessionFacts facts = base == null ? r.facts() : base.merge(r.facts());
        out.add(new Done(key, f, r.nextOffset(), facts, r.corruptLines(), from == 0, count[0]));
        out.send();
        return true;
    }

    /** Thrown through a reader's sink when the index closes while a reader thread waits to hand over a chunk. */
    private static final class Interrupted extends RuntimeException {
        Interrupted() {
            super("interrupted", null, false, false);
        }
    }

    private SessionFacts loadFacts(long key, String provider) {
        return store.read(h -> h.createQuery("SELECT * FROM history_sessions WHERE id = :k").bind("k", key)
                .map((rs, ctx) -> new SessionFacts(rs.getString("session_id"), rs.getString("project_path"),
                        rs.getString("title"), rs.getInt("title_rank"), rs.getString("first_prompt"),
                        Instant.ofEpochMilli(rs.getLong("created_at")), Instant.ofEpochMilli(rs.getLong("last_activity")),
                        rs.getLong("message_count"), rs.getInt("subagent") != 0, usage(rs.getString("usage_json")),
                        HistoryProviders.CODEX.equals(provider), false))
                .findOne().orElse(SessionFacts.EMPTY));
    }

    /** Whether the reader may deliver a message id again in place of the earlier message (HistorySink contract). */
    private static boolean redelivers(SessionFile f) {
        return HistoryProviders.GEMINI.equals(f.provider()) || HistoryProviders.OPENCODE.equals(f.provider())
                || HistoryProviders.CURSOR.equals(f.provider())
                || (HistoryProviders.QWEN.equals(f.provider()) && f.path().toString().contains("/.qwen/tmp/"));
    }

    private Map<String, Long> loadIds(long key) {
        Map<String, Long> out = new HashMap<>();
        store.read(h -> {
            h.createQuery("SELECT msg_id, position FROM history_messages WHERE session_key = :k").bind("k", key)
                    .map((rs, ctx) -> out.put(rs.getString(1), rs.getLong(2))).forEach(x -> {
                    });
            return null;
        });
        return out;
    }

    private long nextPosition(long key) {
        return store.read(h -> h.createQuery("SELECT COALESCE(MAX(position) + 1, 0) FROM history_messages "
                + "WHERE session_key = :k").bind("k", key).mapTo(Long.class).one());
    }

    /** One reader's writes for the session it reads, handed to the writer a chunk at a time. */
    private final class Outbox {
        private List<Op> ops = new ArrayList<>();
        /**
         * Position -> index in {@link #ops} of the inserts not handed over yet; kept only for readers that deliver an
         * id again (null for the others: they never replace an insert, and a map entry per message is not free).
         */
        private final Map<Long, Integer> inserts;
        private long chars;
        /** Since when this reader has been reading (not waiting to hand over): the readers' time in the log. */
        private long busySince = System.nanoTime();
        boolean sentMessages;

        Outbox(boolean replacesInserts) {
            inserts = replacesInserts ? new HashMap<>() : null;
        }

        void add(Op op) {
            if (inserts != null) {
                if (op instanceof DropMessages) {
                    inserts.clear();
                } else if (op instanceof InsertMessage i) {
                    inserts.put(i.position(), ops.size());
                }
            }
            ops.add(op);
            chars += 64;
            if (op instanceof InsertMessage i) {
                chars += chars(i.m());
            } else if (op instanceof UpdateMessage u) {
                chars += chars(u.m());
            }
        }

        /** Replaces the pending insert at {@code position} with the message's newer version; false if none. */
        boolean replaceInsert(long position, HistoryMessage m, long src) {
            Integer at = inserts == null ? null : inserts.get(position);
            if (at == null) {
                return false;
            }
            InsertMessage old = (InsertMessage) ops.get(at);
            ops.set(at, new InsertMessage(old.key(), position, m, src));
            chars += chars(m) - chars(old.m());
            return true;
        }

        boolean full() {
            return ops.size() >= CHUNK_ROWS || chars >= CHUNK_CHARS;
        }

        void send() {
            if (ops.isEmpty()) {
                return;
            }
            int permits = (int) Math.min(IN_FLIGHT_KIB, chars / 1024 + 1);
            readNanos.addAndGet(System.nanoTime() - busySince);
            try {
                inFlight.acquire(permits);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Interrupted();
            }
            busySince = System.nanoTime();
            sentMessages |= ops.stream().anyMatch(o -> o instanceof InsertMessage || o instanceof UpdateMessage);
            inbox.add(new Chunk(ops, chars, permits));
            ops = new ArrayList<>();
            if (inserts != null) {
                inserts.clear();
            }
            chars = 0;
        }

        private static long chars(HistoryMessage m) {
            return len(m.text()) + len(m.toolOutput()) + len(m.toolInputJson()) + len(m.id());
        }
    }
    /** The offset of the message's record when a tool payload is too long to store whole, else -1. */
    private static long clippedAt(HistoryMessage m) {
        return m.nativeOffset() >= 0 && (len(m.toolInputJson()) > CLIP_CHARS || len(m.toolOutput()) > CLIP_CHARS)
                ? m.nativeOffset() : -1;
    }

    /**
     * The message as stored when clipped: a long input is left out (a cut JSON document is no JSON), a long output
     * keeps its head; a page of messages completes both from the file.
     */
    private static HistoryMessage clipped(HistoryMessage m) {
        String input = len(m.toolInputJson()) > CLIP_CHARS ? null : m.toolInputJson();
        String output = len(m.toolOutput()) > CLIP_CHARS ? clipText(m.toolOutput()) : m.toolOutput();
        return new HistoryMessage(m.id(), m.sessionId(), m.role(), m.kind(), m.text(), m.toolName(), m.toolCallId(),
                input, output, m.toolError(), m.timestamp(), m.usage(), m.nativeOffset());
    }
    /** The head of a clipped text, never ending inside a surrogate pair. */
    private static String clipText(String s) {
        int end = CLIP_CHARS;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end);
    }
}
