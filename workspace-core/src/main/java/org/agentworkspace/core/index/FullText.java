package org.agentworkspace.core.index;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agentworkspace.core.store.SecureFiles;
import org.agentworkspace.core.store.Store;
import org.sqlite.SQLiteConfig;

/**
 * The full-text index of the history on SQLite: a contentless FTS5 table ({@code contentless_delete=1}) in a database
 * file of its own next to the store's ({@code workspace.db} → {@code workspace-search.db}), written by a thread of
 * its own. SQLite allows one writer per database file: with the words in another file, the index's writer stores
 * messages while this thread indexes the words of those it stored before, on the other core.
 *
 * <p>The index's writer hands over what it committed ({@link #submit}): a message's id and text to add, or an id to
 * remove. Ids of {@code history_messages} are never reused (AUTOINCREMENT), and the operations are applied in the
 * order they were committed, so the file follows the store. Searches run on a connection to this file with the
 * store attached as {@code ws}: candidates come from the FTS5 table, everything else (and the text, whose snippet is
 * computed by {@link Snippets}) from the store by id.
 *
 * <p>The rows are derived data. The file records the store's generation (a random id kept in the store's
 * {@code history_search_state}) and whether it was closed cleanly; when it is missing, unreadable, from another
 * generation or not closed cleanly (a crash may lose operations handed over but not yet applied), it is emptied and
 * filled again from {@code history_messages} in the background before anything else is applied; until then searches
 * find only what is indexed so far and the index does not report ready.
 */
final class FullText implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(FullText.class.getName());
    /**
     * Chars (in KiB) of text handed over but not indexed yet: the index's writer waits beyond this. Small, so that
     * little text waits long enough to reach the old generation (HistoryIndex, next to CHUNK_ROWS).
     */
    private static final int QUEUE_KIB = 1024;
    /** Rows applied per step of this thread (one round of statement batches), at most. */
    private static final int TX_ROWS = 20_000;
    private static final long TX_CHARS = 8L * 1024 * 1024;
    /**
     * While the index reports more work coming, the steps are committed together, up to this many chars of text or
     * {@link #COMMIT_NANOS} after the first uncommitted step: FTS5 writes its pending terms out as a new segment at
     * every commit, and merging many small segments cost the 2 GB benchmark history's first indexing about a sixth of
     * this thread's CPU (docs/benchmarks.md, run 16). Searches see the words once committed.
     */
    private static final long COMMIT_CHARS = 32L * 1024 * 1024;
    private static final long COMMIT_NANOS = 2_000_000_000L;
    /** Rows read from the store per step of a rebuild. */
    private static final int REBUILD_BATCH = 5_000;
    private static final int MAX_IDLE_READERS = 2;
    /**
     * Connections unused this long are closed (an SQLite connection keeps its page cache and allocations); tests of
     * this package shorten it.
     */
    static volatile long idleCloseNanos = 10_000_000_000L;
    static final String TABLE = "message_fts";
    /**
     * No token positions: which messages hold a token is all a search asks (snippets are computed from the text by
     * {@link Snippets}), and without positions FTS5 indexes the 2 GB benchmark history's words with about 28 % less
     * CPU in a file 60 % smaller. The cost: no phrase queries (each token of a query is its own term), and FTS5's
     * own bm25() scores every row 0 without positions, so searches compute it themselves ({@link Bm25}).
     */
    private static final String LAYOUT = "detail=none";

    /** An operation on the index, in commit order. */
    sealed interface Op permits Add, Remove {
    }

    /** Index the words of message {@code id} (non-empty text). */
    record Add(long id, String text) implements Op {
    }

    /** Forget message {@code id} (a no-op when it has no row). */
    record Remove(long id) implements Op {
    }

    private record Batch(List<Op> ops, int permits) {
    }

    private final Store store;
    private final Path storeFile;
    private final Path file;
    private final BlockingQueue<Batch> queue = new LinkedBlockingQueue<>();
    private final Semaphore budget = new Semaphore(QUEUE_KIB);
    private final AtomicLong pendingOps = new AtomicLong();
    private final BlockingQueue<Connection> idleReaders = new ArrayBlockingQueue<>(MAX_IDLE_READERS);
    private final AtomicLong cpuNanos = new AtomicLong();
    private final AtomicLong indexed = new AtomicLong();
    private final Thread thread;
    /** Whether the index has more to hand over soon (readers busy): commits are then gathered (COMMIT_CHARS). */
    private final java.util.function.BooleanSupplier moreComing;
    private Connection writer;
    /** Operations applied in the writer's open transaction (not visible to searches, not idle). */
    private long uncommittedOps;
    private long uncommittedChars;
    private long uncommittedSince;
    /** Rows added by the open transaction. */
    private long uncommittedAdds;
    /** Highest message id a rebuild must read from the store; -1 when no rebuild is due. */
    private volatile long rebuildUpTo = -1;
    private volatile boolean closing;
    private volatile boolean failed;
    private volatile boolean shrinkRequested;
    private volatile long lastReaderUse = System.nanoTime();

    private FullText(Store store, Path storeFile, Path file, java.util.function.BooleanSupplier moreComing) {
        this.store = store;
        this.moreComing = moreComing;
        this.storeFile = storeFile;
        this.file = file;
        this.thread = Thread.ofPlatform().daemon().name("history-index-fts").unstarted(this::loop);
    }

    /**
     * Opens (creating or rebuilding as needed) the search file of an SQLite store and starts its thread. Call before
     * the index writes anything: a rebuild reads the store up to the messages it holds now. {@code moreComing}: whether
     * the index is about to hand over more (see {@link #COMMIT_CHARS}); commits wait for it no longer than
     * {@link #COMMIT_NANOS}.
     */
    static FullText open(Store store, java.util.function.BooleanSupplier moreComing) {
        // searches attach the store's file (an in-memory SQLite store is one database per connection: not supported)
        Path storeFile = store.sqliteFile().orElseThrow(() -> new IllegalStateException(
                "the full-text index needs an SQLite store in a file"));
        Path file = searchFile(storeFile);
        try {
            if (Files.notExists(file)) {
                SecureFiles.createPrivateFile(file);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the search file " + file, e);
        }
        FullText ft = new FullText(store, storeFile, file, moreComing);
        ft.prepare();
        ft.thread.start();
        return ft;
    }

    /** {@code workspace.db} → {@code workspace-search.db}, in the same folder. */
    static Path searchFile(Path storeFile) {
        String name = storeFile.getFileName().toString();
        String base = name.endsWith(".db") ? name.substring(0, name.length() - 3) : name;
        return storeFile.resolveSibling(base + "-search.db");
    }

    private Connection connect() throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
        config.setBusyTimeout(30_000);
        return config.createConnection("jdbc:sqlite:" + file);
    }

    /** Opens the writer connection and decides whether a rebuild is due (see the class comment). */
    private void prepare() {
        String generation = store.read(h -> h.createQuery(
                "SELECT v FROM history_search_state WHERE k = 'generation'").mapTo(String.class).findOne()
                .orElse(null));
        if (generation == null) {
            String fresh = UUID.randomUUID().toString();
            store.write(h -> h.createUpdate("INSERT INTO history_search_state (k, v) VALUES ('generation', :v) "
                    + "ON CONFLICT (k) DO NOTHING").bind("v", fresh).execute());
            generation = store.read(h -> h.createQuery("SELECT v FROM history_search_state WHERE k = 'generation'")
                    .mapTo(String.class).one());
        }
        String why;
        try {
            why = openWriter(generation);
        } catch (SQLException e) {
            // an unreadable file (say, torn by a power loss): start over with an empty one
            LOG.log(Level.WARNING, "search file {0} unreadable, making a new one: {1}", file, e.toString());
            closeQuietly(writer);
            try {
                for (String suffix : List.of("", "-wal", "-shm")) {
                    Files.deleteIfExists(Path.of(file + suffix));
                }
                SecureFiles.createPrivateFile(file);
                openWriter(generation);
                why = "the file was unreadable";
            } catch (SQLException | IOException e2) {
                throw new IllegalStateException("cannot open the search file " + file, e2);
            }
        }
        if (why != null) {
            long upTo = store.read(h -> h.createQuery("SELECT COALESCE(MAX(id), 0) FROM history_messages")
                    .mapTo(Long.class).one());
            LOG.log(Level.INFO, "rebuilding the full-text index from the store ({0}): messages up to id {1}", why,
                    upTo);
            rebuildUpTo = upTo;
        }
    }

    /** Opens the writer connection and the schema; the reason a rebuild is due, or null. */
    private String openWriter(String generation) throws SQLException {
        writer = connect();
        try (Statement s = writer.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS search_state (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
            String why = null;
            String had = state(s, "generation");
            if (had == null) {
                why = "no search file yet";
            } else if (!had.equals(generation)) {
                why = "the search file belongs to another copy of the store";
            } else if (!"1".equals(state(s, "clean"))) {
                why = "the search file was not closed cleanly";
            } else if (!tableExists(s)) {
                why = "the search file holds no index";
            } else if (!currentLayout(s)) {
                why = "the search file's index has an older layout";
            }
            writer.setAutoCommit(false);
            if (why != null) {
                s.execute("DROP TABLE IF EXISTS " + TABLE);
                s.execute("CREATE VIRTUAL TABLE " + TABLE + " USING fts5(text, content='', contentless_delete=1, "
                        + "tokenize='unicode61', " + LAYOUT + ")");
                // fewer, larger segments while bulk indexing; pending terms flushed at 8 MiB
                s.execute("INSERT INTO " + TABLE + " (" + TABLE + ", rank) VALUES ('automerge', 16)");
                s.execute("INSERT INTO " + TABLE + " (" + TABLE + ", rank) VALUES ('crisismerge', 32)");
                s.execute("INSERT INTO " + TABLE + " (" + TABLE + ", rank) VALUES ('hashsize', 8388608)");
                putState(writer, "generation", generation);
            }
            // not clean until close() says so: a crash from here on means a rebuild at the next start
            putState(writer, "clean", "0");
            writer.commit();
            return why;
        } catch (SQLException e) {
            try {
                writer.rollback();
            } catch (SQLException ignored) {
                // the connection goes
            }
            throw e;
        }
    }

    private static String state(Statement s, String k) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT v FROM search_state WHERE k = '" + k + "'")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** Whether the table is the one {@link #openWriter} creates now (the word positions were dropped later). */
    private static boolean currentLayout(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT sql FROM sqlite_master WHERE name = '" + TABLE + "'")) {
            return rs.next() && rs.getString(1).contains(LAYOUT);
        }
    }

    private static boolean tableExists(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT 1 FROM sqlite_master WHERE name = '" + TABLE + "'")) {
            return rs.next();
        }
    }

    private static void putState(Connection c, String k, String v) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO search_state (k, v) VALUES (?, ?) "
                + "ON CONFLICT (k) DO UPDATE SET v = excluded.v")) {
            ps.setString(1, k);
            ps.setString(2, v);
            ps.executeUpdate();
        }
    }

    /**
     * Hands over operations the store has committed, in commit order; waits while too much text is queued. When the
     * operations are lost (after {@link #close}, or the caller is interrupted while waiting) the file is not marked
     * clean, so the next start rebuilds it.
     */
    void submit(List<Op> ops) {
        if (ops.isEmpty()) {
            return;
        }
        if (closing) {
            failed = true;
            return;
        }
        long chars = 0;
        for (Op op : ops) {
            chars += 16 + (op instanceof Add a ? a.text().length() : 0);
        }
        int permits = (int) Math.min(QUEUE_KIB, chars / 1024 + 1);
        try {
            budget.acquire(permits);
        } catch (InterruptedException e) {
            failed = true;
            Thread.currentThread().interrupt();
            return;
        }
        pendingOps.addAndGet(ops.size());
        queue.add(new Batch(List.copyOf(ops), permits));
    }

    /** Nothing handed over is waiting, and no rebuild is running. */
    boolean idle() {
        return pendingOps.get() == 0 && rebuildUpTo < 0;
    }

    /** A rebuild from the store is running (searches find only part of the history). */
    boolean rebuilding() {
        return rebuildUpTo >= 0;
    }

    /** CPU time of this thread so far. */
    long cpuNanos() {
        return cpuNanos.get();
    }

    /** Rows added so far (rebuilds included). */
    long indexed() {
        return indexed.get();
    }

    private void loop() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long lastWork = System.nanoTime();
        try {
            if (rebuildUpTo >= 0) {
                if (!rebuild(rebuildUpTo)) {
                    // stopped by close(): the file stays unclean and is rebuilt at the next start
                    failed = true;
                }
                rebuildUpTo = -1;
                cpuNanos.set(mx.getCurrentThreadCpuTime());
            }
            List<Batch> tx = new ArrayList<>();
            while (true) {
                Batch first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (uncommittedOps > 0) {
                        // nothing arrived for a while
                        if (commitDue(true)) {
                            commit();
                        }
                        continue;
                    }
                    if (closing) {
                        return;
                    }
                    if (shrinkRequested) {
                        shrinkRequested = false;
                        if (writer != null) {
                            shrink(writer);
                        }
                    }
                    closeIdle(lastWork);
                    continue;
                }
                lastWork = System.nanoTime();
                tx.add(first);
                long rows = first.ops().size();
                long chars = (long) first.permits() * 1024;
                Batch next;
                while (rows < TX_ROWS && chars < TX_CHARS && (next = queue.poll()) != null) {
                    tx.add(next);
                    rows += next.ops().size();
                    chars += (long) next.permits() * 1024;
                }
                long ops = 0;
                for (Batch b : tx) {
                    ops += b.ops().size();
                }
                try {
                    ensureWriter();
                    if (uncommittedOps == 0) {
                        uncommittedSince = System.nanoTime();
                    }
                    // counted before applying: a failed step is dropped with the rest of the transaction
                    uncommittedOps += ops;
                    uncommittedChars += chars;
                    apply(tx);
                } catch (SQLException | RuntimeException e) {
                    rollbackAfterFailure(e);
                } finally {
                    // the texts are in SQLite's hands now: the index's writer may hand over more
                    for (Batch b : tx) {
                        budget.release(b.permits());
                    }
                    tx.clear();
                }
                if (uncommittedOps > 0 && commitDue(queue.isEmpty())) {
                    commit();
                }
                cpuNanos.set(mx.getCurrentThreadCpuTime());
            }
        } catch (InterruptedException e) {
            // closing
        } catch (SQLException | RuntimeException e) {
            failed = true;
            rebuildUpTo = -1;
            LOG.log(Level.WARNING, "full-text index rebuild failed; it is tried again at the next start: {0}",
                    e.toString());
        }
    }

    /**
     * Closes what has not been used for {@link #idleCloseNanos}: the writer connection (reopened for the next
     * work) and the idle search connections. An SQLite connection keeps its page cache and what FTS5 allocated.
     */
    private void closeIdle(long lastWork) {
        long now = System.nanoTime();
        if (writer != null && now - lastWork > idleCloseNanos) {
            closeQuietly(writer);
            writer = null;
        }
        if (now - lastReaderUse > idleCloseNanos && !idleReaders.isEmpty()) {
            Connection c;
            while ((c = idleReaders.poll()) != null) {
                closeQuietly(c);
            }
        }
    }

    /** The writer connection, opened again after being closed while idle. */
    private void ensureWriter() throws SQLException {
        if (writer == null) {
            Connection c = connect();
            c.setAutoCommit(false);
            writer = c;
        }
    }

    private static final String INSERT = "INSERT INTO " + TABLE + " (rowid, text) VALUES (?, ?)";
    private static final String DELETE = "DELETE FROM " + TABLE + " WHERE rowid = ?";

    /**
     * Whether the open transaction is to be committed now: it is large or old enough, or {@code quiet} (nothing is
     * queued) and nothing more is coming (or the thread is closing).
     */
    private boolean commitDue(boolean quiet) {
        return uncommittedChars >= COMMIT_CHARS || System.nanoTime() - uncommittedSince >= COMMIT_NANOS
                || (quiet && (closing || !moreComing.getAsBoolean()));
    }

    /** Commits the open transaction; its operations count as done (and searches see them) from here. */
    private void commit() {
        try {
            if (writer != null) {
                writer.commit();
            }
            indexed.addAndGet(uncommittedAdds);
        } catch (SQLException | RuntimeException e) {
            rollbackAfterFailure(e);
            return;
        }
        pendingOps.addAndGet(-uncommittedOps);
        uncommittedOps = 0;
        uncommittedChars = 0;
        uncommittedAdds = 0;
    }

    /** A failed step or commit: what the transaction held is lost, so the file is rebuilt at the next start. */
    private void rollbackAfterFailure(Exception e) {
        failed = true;
        LOG.log(Level.WARNING, "full-text index update failed; it is rebuilt at the next start: {0}", e.toString());
        try {
            if (writer != null) {
                writer.rollback();
            }
        } catch (SQLException ignored) {
            // the connection is in trouble anyway
        }
        pendingOps.addAndGet(-uncommittedOps);
        uncommittedOps = 0;
        uncommittedChars = 0;
        uncommittedAdds = 0;
    }

    /**
     * Applies batches in the writer's open transaction, in order (a statement's batch runs before the other one is
     * used); {@link #commit} ends it.
     */
    private void apply(List<Batch> tx) throws SQLException {
        try (PreparedStatement insert = writer.prepareStatement(INSERT);
             PreparedStatement delete = writer.prepareStatement(DELETE)) {
            PreparedStatement open = null;
            long added = 0;
            for (Batch b : tx) {
                for (Op op : b.ops()) {
                    PreparedStatement want = op instanceof Add ? insert : delete;
                    if (open != null && open != want) {
                        open.executeBatch();
                    }
                    open = want;
                    switch (op) {
                        case Add a -> {
                            insert.setLong(1, a.id());
                            insert.setString(2, a.text());
                            added++;
                        }
                        case Remove r -> delete.setLong(1, r.id());
                    }
                    open.addBatch();
                }
            }
            if (open != null) {
                open.executeBatch();
            }
            uncommittedAdds += added;
        }
    }

    /** Fills the (emptied) table from the store's messages with ids up to {@code upTo}; false when stopped first. */
    private boolean rebuild(long upTo) throws SQLException {
        long t0 = System.nanoTime();
        long after = 0;
        long rows = 0;
        long chars = 0;
        while (!closing) {
            long from = after;
            List<Add> batch = store.read(h -> h.createQuery("SELECT id, text FROM history_messages WHERE id > :a "
                    + "AND id <= :u AND text <> '' ORDER BY id LIMIT " + REBUILD_BATCH).bind("a", from).bind("u", upTo)
                    .map((rs, ctx) -> new Add(rs.getLong(1), rs.getString(2))).list());
            if (batch.isEmpty()) {
                commit();
                LOG.log(Level.INFO, "full-text index rebuilt in {0} ms: {1} messages",
                        (System.nanoTime() - t0) / 1_000_000, rows);
                return true;
            }
            after = batch.getLast().id();
            rows += batch.size();
            List<Op> ops = new ArrayList<>(batch);
            ensureWriter();
            apply(List.of(new Batch(ops, 0)));
            for (Add a : batch) {
                chars += a.text().length();
            }
            // committed in large steps, as in loop(); not visible as ready before the end anyway
            if (chars >= COMMIT_CHARS) {
                commit();
                chars = 0;
            }
        }
        return false;
    }

    /**
     * After a burst of work (the index is ready): the connections give their page caches back (the writer's when its
     * thread is next idle).
     */
    void releaseMemory() {
        shrinkRequested = true;
        List<Connection> idle = new ArrayList<>();
        idleReaders.drainTo(idle);
        for (Connection c : idle) {
            shrink(c);
            release(c);
        }
    }

    private static void shrink(Connection c) {
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA shrink_memory");
        } catch (SQLException e) {
            LOG.log(Level.DEBUG, "shrink_memory failed: {0}", e.toString());
        }
    }

    /** A connection for a search: this file, with the store attached as {@code ws}. Give it back with {@link #release}. */
    Connection reader() throws SQLException {
        lastReaderUse = System.nanoTime();
        Connection c;
        while ((c = idleReaders.poll()) != null) {
            if (!c.isClosed()) {
                return c;
            }
        }
        c = connect();
        try (PreparedStatement ps = c.prepareStatement("ATTACH DATABASE ? AS ws")) {
            ps.setString(1, storeFile.toString());
            ps.execute();
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    void release(Connection c) {
        lastReaderUse = System.nanoTime();
        if (closing || !idleReaders.offer(c)) {
            closeQuietly(c);
        }
    }

    /**
     * Applies what was handed over (up to {@code drain}), then marks the file clean when {@code clean} (the index's
     * threads have all stopped, so nothing handed over later is lost) and everything was applied.
     */
    void close(boolean clean, java.time.Duration drain) {
        closing = true;
        try {
            thread.join(drain.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            thread.interrupt();
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        boolean complete = !thread.isAlive() && queue.isEmpty() && rebuildUpTo < 0 && !failed;
        try {
            if (clean && complete) {
                ensureWriter();
                putState(writer, "clean", "1");
                writer.commit();
            }
        } catch (SQLException e) {
            LOG.log(Level.WARNING, "cannot mark the search file clean: {0}", e.toString());
        }
        closeQuietly(writer);
        Connection c;
        while ((c = idleReaders.poll()) != null) {
            closeQuietly(c);
        }
    }

    @Override
    public void close() {
        close(false, java.time.Duration.ofSeconds(5));
    }

    private static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException e) {
            // closing anyway
        }
    }
}
