package org.agentworkspace.core.index;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.core.history.HistoryReaders;
import org.agentworkspace.core.history.SessionFacts;
import org.agentworkspace.core.history.SessionFile;
import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;

import static org.agentworkspace.core.index.IndexState.TX_CHARS;
import static org.agentworkspace.core.index.IndexState.TX_ROWS;
import static org.agentworkspace.core.index.IndexWriter.IDS_OF;
import static org.agentworkspace.core.index.IndexState.clean;
import static org.agentworkspace.core.index.IndexState.clip;
import static org.agentworkspace.core.index.IndexState.key;
import static org.agentworkspace.core.index.IndexState.nextSqliteId;
import static org.agentworkspace.core.index.IndexState.usage;
import static org.agentworkspace.core.index.IndexState.usageJson;

import org.agentworkspace.core.index.IndexState.Known;
import org.agentworkspace.core.index.Op.Chunk;
import org.agentworkspace.core.index.Op.Done;
import org.agentworkspace.core.index.Op.DropMessages;
import org.agentworkspace.core.index.Op.InsertMessage;
import org.agentworkspace.core.index.Op.MarkUnread;
import org.agentworkspace.core.index.Op.UpdateMessage;

/**
 * Phase 2 of the {@link HistoryIndex}, writing: the one thread that stores the readers' chunks in large plain-JDBC
 * transactions and hands what it committed to the full-text index.
 */
final class IndexWriter {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    private final IndexState st;
    private final Store store;
    private final HistoryReaders readers;
    private final Map<String, Known> known;
    private final Set<Long> running;
    private final AtomicLong corruptLines;
    private final AtomicLong version;
    private final java.util.concurrent.LinkedBlockingQueue<Chunk> inbox;
    private final java.util.concurrent.Semaphore inFlight;
    private final AtomicLong writeNanos;
    private final AtomicLong writerIdleNanos;
    private final AtomicLong writerCpuNanos;
    private final AtomicLong writtenMessages;

    IndexWriter(IndexState st) {
        this.st = st;
        this.store = st.store;
        this.readers = st.readers;
        this.known = st.known;
        this.running = st.running;
        this.corruptLines = st.corruptLines;
        this.version = st.version;
        this.inbox = st.inbox;
        this.inFlight = st.inFlight;
        this.writeNanos = st.writeNanos;
        this.writerIdleNanos = st.writerIdleNanos;
        this.writerCpuNanos = st.writerCpuNanos;
        this.writtenMessages = st.writtenMessages;
    }

    /**
     * The writer thread: stores the readers' chunks in transactions of up to {@link IndexState#TX_ROWS} rows, then updates
     * the in-memory state of the sessions whose reads it finished.
     */
    void writeLoop() {
        List<Chunk> tx = new ArrayList<>();
        while (!st.closed) {
            long idle0 = System.nanoTime();
            Chunk first;
            try {
                first = inbox.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            if (st.readyAt == null) {
                writerIdleNanos.addAndGet(System.nanoTime() - idle0);
            }
            if (first == null) {
                st.checkReady();
                continue;
            }
            long t0 = System.nanoTime();
            tx.add(first);
            long rows = first.ops().size();
            long chars = first.chars();
            Chunk next;
            while (rows < TX_ROWS && chars < TX_CHARS && (next = inbox.poll()) != null) {
                tx.add(next);
                rows += next.ops().size();
                chars += next.chars();
            }
            try {
                writeChunks(tx);
            } catch (RuntimeException e) {
                if (st.closed) {
                    break;
                }
                // one chunk spoiled the transaction (say, a session deleted meanwhile): store the others one by one
                LOG.log(Level.DEBUG, "history write of {0} chunks failed, retrying one by one: {1}", tx.size(),
                        e.toString());
                for (Chunk c : tx) {
                    try {
                        writeChunks(List.of(c));
                    } catch (RuntimeException e2) {
                        LOG.log(Level.WARNING, "cannot store history index changes: {0}", e2.toString());
                        for (Op op : c.ops()) {
                            if (op instanceof Done d) {
                                running.remove(d.key());
                            }
                        }
                    }
                }
            } finally {
                for (Chunk c : tx) {
                    inFlight.release(c.permits());
                }
                tx.clear();
            }
            writeNanos.addAndGet(System.nanoTime() - t0);
            if (st.readyAt == null) {
                writerCpuNanos.set(java.lang.management.ManagementFactory.getThreadMXBean()
                        .getCurrentThreadCpuTime());
            }
            st.checkReady();
        }
    }

    // plain JDBC batches for the bulk of the work (parameters 1-12 are the message, 13-14 the session and position)
    private static final String INSERT = "INSERT INTO history_messages (msg_id, role, kind, text, tool_name, "
            + "tool_call_id, tool_input, tool_output, tool_error, ts, usage_json, src_offset, session_key, position) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String UPDATE = "UPDATE history_messages SET msg_id = ?, role = ?, kind = ?, text = ?, "
            + "tool_name = ?, tool_call_id = ?, tool_input = ?, tool_output = ?, tool_error = ?, ts = ?, "
            + "usage_json = ?, src_offset = ? WHERE session_key = ? AND position = ?";
    /** SQLite: the writer numbers the rows itself (the full-text thread learns them from it). */
    private static final String INSERT_WITH_ID = "INSERT INTO history_messages (msg_id, role, kind, text, tool_name, "
            + "tool_call_id, tool_input, tool_output, tool_error, ts, usage_json, src_offset, session_key, position, "
            + "id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String ID_AT = "SELECT id FROM history_messages WHERE session_key = ? AND position = ?";
    static final String IDS_OF = "SELECT id FROM history_messages WHERE session_key = ? AND text <> ''";
    private static final String DROP = "DELETE FROM history_messages WHERE session_key = ?";
    private static final String MARK = "UPDATE history_sessions SET read_offset = -1 WHERE id = ?";
    private static final String DONE = "UPDATE history_sessions SET size = ?, mtime = ?, read_offset = ?, "
            + "corrupt_lines = CASE WHEN ? = 1 THEN ? ELSE corrupt_lines + ? END, project_path = ?, project_name = ?, "
            + "title = ?, title_rank = ?, first_prompt = ?, created_at = ?, last_activity = ?, message_count = ?, "
            + "subagent = ?, usage_json = ? WHERE id = ?";
    private static final String DONE_UNREADABLE = "UPDATE history_sessions SET size = ?, mtime = ?, read_offset = ? "
            + "WHERE id = ?";

    /** Stores the chunks in one transaction, then brings the in-memory state of finished sessions up to date. */
    private void writeChunks(List<Chunk> chunks) {
        List<Known> updated = new ArrayList<>();
        List<Long> finished = new ArrayList<>();
        long[] corruptAdded = {0};
        long[] messages = {0};
        boolean sqlite = store.dialect() == Dialect.SQLITE;
        // SQLite: what the full-text thread is to do once this transaction committed
        List<FullText.Op> fts = new ArrayList<>();
        FullText ft = st.fullText();
        store.write(h -> {
            fts.clear();
            java.sql.Connection c = h.getConnection();
            long nextId = sqlite ? nextSqliteId(h, "history_messages") : 0;
            try (java.sql.PreparedStatement insert = c.prepareStatement(sqlite ? INSERT_WITH_ID : INSERT);
                 java.sql.PreparedStatement idAt = c.prepareStatement(ID_AT);
                 java.sql.PreparedStatement idsOf = c.prepareStatement(IDS_OF);
                 java.sql.PreparedStatement update = c.prepareStatement(UPDATE);
                 java.sql.PreparedStatement drop = c.prepareStatement(DROP);
                 java.sql.PreparedStatement mark = c.prepareStatement(MARK);
                 java.sql.PreparedStatement done = c.prepareStatement(DONE);
                 java.sql.PreparedStatement unreadable = c.prepareStatement(DONE_UNREADABLE)) {
                TxOps tx = new TxOps(sqlite, nextId, insert, idAt, idsOf, update, drop, mark, done, unreadable, fts,
                        updated, finished);
                for (Chunk chunk : chunks) {
                    for (Op op : chunk.ops()) {
                        tx.apply(op);
                    }
                }
                tx.finish();
                messages[0] += tx.messages;
                corruptAdded[0] += tx.corrupt;
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException("writing history messages failed", e);
            }
            return null;
        });
        if (ft != null) {
            ft.submit(fts);
        }
        for (Known k : updated) {
            known.computeIfPresent(key(k.provider(), k.sessionId()), (x, old) -> old.key() == k.key() ? k : old);
        }
        corruptLines.addAndGet(corruptAdded[0]);
        writtenMessages.addAndGet(messages[0]);
        version.incrementAndGet();
        running.removeAll(finished);
    }

    /**
     * The statements of one writer transaction and what it collects. {@link #apply} handles one op: kept out of the
     * loop over a transaction's ops, the loop compiles as a small unit (the JIT used to compile the loop with every
     * op's code inlined several times over, on-stack replacement included: about half a second of C2 time on the 2 GB
     * benchmark history).
     */
    private final class TxOps {
        private final boolean sqlite;
        private final java.sql.PreparedStatement insert;
        private final java.sql.PreparedStatement idAt;
        private final java.sql.PreparedStatement idsOf;
        private final java.sql.PreparedStatement update;
        private final java.sql.PreparedStatement drop;
        private final java.sql.PreparedStatement mark;
        private final java.sql.PreparedStatement done;
        private final java.sql.PreparedStatement unreadable;
        private final List<FullText.Op> fts;
        private final List<Known> updated;
        private final List<Long> finished;
        /** The statement whose batch is open: batches run in op order, one is executed before another is used. */
        private java.sql.PreparedStatement open;
        private int dones;
        private long nextId;
        long messages;
        long corrupt;

        TxOps(boolean sqlite, long nextId, java.sql.PreparedStatement insert, java.sql.PreparedStatement idAt,
                java.sql.PreparedStatement idsOf, java.sql.PreparedStatement update, java.sql.PreparedStatement drop,
                java.sql.PreparedStatement mark, java.sql.PreparedStatement done,
                java.sql.PreparedStatement unreadable, List<FullText.Op> fts, List<Known> updated,
                List<Long> finished) {
            this.sqlite = sqlite;
            this.nextId = nextId;
            this.insert = insert;
            this.idAt = idAt;
            this.idsOf = idsOf;
            this.update = update;
            this.drop = drop;
            this.mark = mark;
            this.done = done;
            this.unreadable = unreadable;
            this.fts = fts;
            this.updated = updated;
            this.finished = finished;
        }

        void apply(Op op) throws java.sql.SQLException {
            java.sql.PreparedStatement want = switch (op) {
                case InsertMessage i -> insert;
                case UpdateMessage u -> update;
                case DropMessages d -> drop;
                case MarkUnread m -> mark;
                case Done d -> null;
            };
            if (want != null && open != null && open != want) {
                open.executeBatch();
                open = null;
            }
            if (want != null) {
                open = want;
            }
            switch (op) {
                case InsertMessage i -> {
                    if (sqlite) {
                        long id = nextId++;
                        insert.setLong(15, id);
                        String text = clean(i.m().text());
                        if (!text.isEmpty()) {
                            fts.add(new FullText.Add(id, text));
                        }
                    }
                    bindMessage(insert, i.key(), i.position(), i.m(), i.src());
                    messages++;
                }
                case UpdateMessage u -> {
                    if (sqlite) {
                        // the rows before it are stored (a batch runs before another statement)
                        idAt.setLong(1, u.key());
                        idAt.setLong(2, u.position());
                        try (java.sql.ResultSet rs = idAt.executeQuery()) {
                            if (rs.next()) {
                                long id = rs.getLong(1);
                                fts.add(new FullText.Remove(id));
                                String text = clean(u.m().text());
                                if (!text.isEmpty()) {
                                    fts.add(new FullText.Add(id, text));
                                }
                            }
                        }
                    }
                    bindMessage(update, u.key(), u.position(), u.m(), u.src());
                }
                case DropMessages d -> {
                    if (sqlite) {
                        idsOf.setLong(1, d.key());
                        try (java.sql.ResultSet rs = idsOf.executeQuery()) {
                            while (rs.next()) {
                                fts.add(new FullText.Remove(rs.getLong(1)));
                            }
                        }
                    }
                    drop.setLong(1, d.key());
                    drop.addBatch();
                }
                case MarkUnread m -> {
                    mark.setLong(1, m.key());
                    mark.addBatch();
                }
                case Done d -> {
                    finished.add(d.key());
                    Known k = bindDone(done, unreadable, d);
                    if (k != null) {
                        dones++;
                        updated.add(k);
                        corrupt += d.corrupt();
                    }
                }
            }
        }

        /** Runs the batches still open. */
        void finish() throws java.sql.SQLException {
            if (open != null) {
                open.executeBatch();
            }
            if (dones > 0) {
                done.executeBatch();
                unreadable.executeBatch();
            }
        }
    }
    private static void bindMessage(java.sql.PreparedStatement ps, long key, long position, HistoryMessage m,
            long src) throws java.sql.SQLException {
        boolean clipped = src >= 0;
        ps.setString(1, clean(m.id()));
        ps.setString(2, m.role());
        ps.setString(3, m.kind());
        ps.setString(4, clean(m.text()));
        ps.setString(5, clean(m.toolName()));
        ps.setString(6, clean(m.toolCallId()));
        ps.setString(7, clean(m.toolInputJson()));
        ps.setString(8, clean(m.toolOutput()));
        ps.setInt(9, m.toolError() ? 1 : 0);
        if (m.timestamp() == null) {
            ps.setNull(10, java.sql.Types.BIGINT);
        } else {
            ps.setLong(10, m.timestamp().toEpochMilli());
        }
        ps.setString(11, usageJson(m.usage()));
        if (clipped) {
            ps.setLong(12, src);
        } else {
            ps.setNull(12, java.sql.Types.BIGINT);
        }
        ps.setLong(13, key);
        ps.setLong(14, position);
        ps.addBatch();
    }
    private Known bindDone(java.sql.PreparedStatement done, java.sql.PreparedStatement unreadable, Done d)
            throws java.sql.SQLException {
        SessionFile f = d.file();
        Optional<Known> cur = Optional.ofNullable(known.get(key(f.provider(), f.sessionId())))
                .filter(k -> k.key() == d.key());
        if (cur.isEmpty()) {
            return null;
        }
        long mtime = f.modified().toEpochMilli();
        if (d.facts() == null) {
            unreadable.setLong(1, f.size());
            unreadable.setLong(2, mtime);
            unreadable.setLong(3, d.offset());
            unreadable.setLong(4, d.key());
            unreadable.addBatch();
            return cur.get().with(f.size(), mtime, d.offset(), d.offset() < 0 ? 0 : cur.get().messages());
        }
        SessionFacts facts = d.facts();
        Instant last = facts.lastActivity() != null ? facts.lastActivity() : f.modified();
        Instant first = facts.firstActivity() != null ? facts.firstActivity() : last;
        done.setLong(1, f.size());
        done.setLong(2, mtime);
        done.setLong(3, d.offset());
        done.setInt(4, d.fromStart() ? 1 : 0);
        done.setLong(5, d.corrupt());
        done.setLong(6, d.corrupt());
        done.setString(7, clean(facts.projectPath()));
        done.setString(8, st.projectName(facts.projectPath()));
        done.setString(9, clean(facts.title()));
        done.setInt(10, facts.titleRank());
        done.setString(11, clip(facts.firstPrompt(), 4000));
        done.setLong(12, first.toEpochMilli());
        done.setLong(13, last.toEpochMilli());
        done.setLong(14, d.messages());
        done.setInt(15, facts.subagent() ? 1 : 0);
        done.setString(16, usageJson(facts.usage()));
        done.setLong(17, d.key());
        done.addBatch();
        return cur.get().with(f.size(), mtime, d.offset(), d.messages());
    }
}
