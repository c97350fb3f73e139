package org.agentworkspace.core.index;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.agentworkspace.api.history.MessagePage;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.core.index.IndexState.Known;

/**
 * The conversation history index (see docs/history.md, "The index").
 *
 * <p>Phase 1 (listing) discovers every provider's sessions under the history homes; a session whose file size and
 * mtime match its stored row costs nothing, a new one is peeked at (head of the file only) and written in large
 * batches. Phase 2 (indexing): {@link #WORKERS} reader threads read each new or changed session from its stored
 * offset and hand its messages (long tool payloads clipped, completed from the file on page reads) and exact facts
 * to one writer thread, which stores them in transactions of up to 5,000 rows and hands what it
 * committed to the full-text index ({@link FullText}: on SQLite a search file of its own, with a thread of its
 * own). A {@link HistoryWatcher} (JDK WatchService, 100 ms debounce) and a periodic size/mtime sweep keep the index
 * current. Routes read only the store (and, for searches, the search file).
 */
public final class HistoryIndex implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    /** Reader threads of phase 2. */
    public static final int WORKERS = 2;
    /** Sessions shown inline in each project of the project list. */
    public static final int LIST_SESSIONS = 10;
    /** Pending sessions above which a ready index reports {@code indexing} again. */
    public static final int BACKLOG_INDEXING = 100;
    /** Search totals are counted up to this many matches. */
    public static final int MAX_TOTAL = 10_000;
    /** Matches ranked per search (the newest ones). */
    static final int RANK_CANDIDATES = 1_000;
    static final int MAX_QUERY = 500;
    /** Longest tool input or output stored whole for a message whose record the reader can re-read. */
    static final int CLIP_CHARS = 2_048;

    private final IndexState st;
    private final Duration sweepInterval;
    private final IndexChanges changes;
    private final IndexListing listing;
    private final IndexReader reader;
    private final IndexWriter writer;
    private final IndexSessions sessions;
    private final MessagePages pages;
    private final ProjectCatalog projects;
    private final IndexSearch search;
    private final List<Thread> threads = new ArrayList<>();
    private ScheduledExecutorService scheduler;

    private HistoryIndex(Store store, ProjectRegistry registry, List<Path> homes, Clock clock,
            Duration sweepInterval) {
        this.st = new IndexState(store, registry, homes, clock);
        this.sweepInterval = sweepInterval;
        this.changes = new IndexChanges(st);
        this.sessions = new IndexSessions(st);
        this.projects = new ProjectCatalog(st, sessions);
        this.listing = new IndexListing(st, changes, projects, this::startBackground);
        this.reader = new IndexReader(st);
        this.writer = new IndexWriter(st);
        this.pages = new MessagePages(st, sessions);
        this.search = new IndexSearch(st);
    }

    /**
     * The index of the histories under {@code homes} (users' home directories), not started.
     *
     * @param sweepInterval how often every history directory is listed again as a backstop to the watcher
     */
    public static HistoryIndex create(Store store, ProjectRegistry registry, List<Path> homes, Clock clock,
            Duration sweepInterval) {
        return new HistoryIndex(store, registry, List.copyOf(homes), clock, sweepInterval);
    }

    /** The homes whose histories are indexed. */
    public List<Path> homes() {
        return st.homes;
    }

    /** Whether {@link #start} ran (the engine starts the index unless its configuration turns it off). */
    public synchronized boolean started() {
        return !threads.isEmpty();
    }

    /** Starts phase 1 in the background (then phase 2, the watcher and the sweep). Returns at once. */
    public synchronized void start() {
        if (!threads.isEmpty() || st.closed) {
            return;
        }
        Thread lister = Thread.ofPlatform().daemon().name("history-index-list").unstarted(listing::listPhase);
        threads.add(lister);
        lister.start();
    }

    /**
     * Runs {@code work} once the listing (phase 1) has completed: on the listing thread before phase 2 starts
     * reading, so that it has the CPU to itself then (preparing the first complete project list for the clients
     * waiting for it, say); at once on the caller when the listing completed already. A failure is logged.
     */
    public void whenListed(Runnable work) {
        listing.whenListed(work);
    }

    private synchronized void startBackground() {
        if (st.closed) {
            return;
        }
        Thread w = Thread.ofPlatform().daemon().name("history-index-write").unstarted(writer::writeLoop);
        threads.add(w);
        w.start();
        for (int i = 0; i < WORKERS; i++) {
            Thread t = Thread.ofPlatform().daemon().name("history-index-read-" + i).unstarted(reader::readLoop);
            threads.add(t);
            t.start();
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                .name("history-index-sweep").unstarted(r));
        try {
            st.watcher = HistoryWatcher.start(this, st.homes);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "history watcher unavailable, relying on the sweep: {0}", e.toString());
        }
        long ms = sweepInterval.toMillis();
        scheduler.scheduleWithFixedDelay(changes::sweep, ms, ms, TimeUnit.MILLISECONDS);
    }

    /** Lists every history directory again and reads what changed (a backstop to the watcher). */
    void sweep() {
        changes.sweep();
    }

    /** A path the watcher reported: the session file it belongs to, if any, is checked. */
    void pathChanged(Path home, Path path) {
        changes.pathChanged(home, path);
    }

    // ------------------------------------------------------------------ status

    /**
     * A number that changes whenever what the index answers may have changed (sessions listed or read, renames,
     * deletes, overrides): callers may cache derived answers, such as serialized lists, until it moves.
     */
    public long version() {
        return st.version.get();
    }

    /** Progress of the index. */
    public IndexStatus status() {
        int sessions = 0;
        int indexed = 0;
        long messages = 0;
        for (Known k : st.known.values()) {
            sessions++;
            if (k.offset() >= 0) {
                indexed++;
            }
            messages += k.messages();
        }
        int filesPending = st.pending.size() + st.running.size();
        String state;
        if (!started()) {
            state = "off"; // the configuration turned the index off (--history-index false)
        } else if (st.listedAt == null) {
            state = "listing";
        } else if (st.readyAt == null || filesPending > BACKLOG_INDEXING || rebuildingFullText()) {
            state = "indexing";
        } else {
            state = "ready";
        }
        return new IndexStatus(state, sessions, indexed, messages, filesPending, st.corruptLines.get(), st.startedAt,
                st.listedAt, st.readyAt);
    }

    private boolean rebuildingFullText() {
        FullText ft = st.fullText;
        return ft != null && ft.rebuilding();
    }

    /** Whether phase 1 finished: the project list holds every session found on disk. */
    public boolean listed() {
        return st.listedAt != null;
    }

    /** Waits until phase 1 finished; true when it did within {@code timeout}. */
    public boolean awaitListed(Duration timeout) throws InterruptedException {
        return await(() -> st.listedAt != null, timeout);
    }

    /**
     * Waits until the first full read is over (the index is ready, {@link IndexStatus#readyAt()}) or the index is
     * closed; true when it is ready within {@code timeout}.
     */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        await(() -> st.readyAt != null || st.closed, timeout);
        return st.readyAt != null;
    }

    /** Waits until the index is ready and nothing is pending; true when it was within {@code timeout}. */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return await(() -> st.readyAt != null && st.pending.isEmpty() && st.running.isEmpty()
                && st.fullTextIdle(), timeout);
    }

    private static boolean await(java.util.function.BooleanSupplier condition, Duration timeout)
            throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }
    // ------------------------------------------------------------------ projects, sessions, messages, search

    /**
     * The unified project list: projects found in the history (hidden ones excluded) merged with the registered
     * projects by name, most recent activity first (a registered project without sessions by its registration).
     */
    public List<IndexedProject> projects() {
        return projects.projects();
    }

    /** The project of this name in the unified list (hidden history projects included). */
    public Optional<IndexedProject> findProject(String name) {
        return projects.findProject(name);
    }

    /**
     * Sets the display name of a project: a registered project's through the registry, a history-only project's in
     * the index's overrides (blank restores the folder name).
     */
    public IndexedProject renameProject(String name, String displayName) {
        return projects.renameProject(name, displayName);
    }

    /**
     * Removes a project from the list: deregisters it when registered, and hides its history until a session shows
     * new activity. Files are never touched.
     */
    public void deleteProject(String name) {
        projects.deleteProject(name);
    }

    /** Shows a hidden history project again (a quick-start of its folder). */
    public void unhideProject(String name) {
        projects.unhideProject(name);
    }

    /** The sessions of a project (sub-agent sessions excluded), most recent activity first; empty when none. */
    public List<IndexedSession> sessions(String projectName) {
        return sessions.sessions(projectName);
    }

    /** The sessions of a project, or {@code PROJECT_NOT_FOUND} when the name is neither in history nor registered. */
    public List<IndexedSession> projectSessions(String projectName) {
        return sessions.projectSessions(projectName);
    }

    /**
     * A page of a session's messages, counted back from the newest (docs/history.md, "Paging direction"). A session
     * whose messages are not indexed yet is read from its file.
     *
     * @param provider null for any provider
     */
    public MessagePage messages(String projectName, String sessionId, String provider, int limit, int offset) {
        return pages.messages(projectName, sessionId, provider, limit, offset);
    }

    /**
     * Sets a session's title (stored in the index, survives re-indexing); blank removes it, so the CLI's title shows
     * again. Returns the session's title now.
     *
     * @param provider null for any provider (the most recently active session with this id)
     */
    public IndexedSession renameSession(String sessionId, String provider, String title) {
        return sessions.renameSession(sessionId, provider, title);
    }

    /**
     * Deletes a session's history: for providers that keep one file per session, the file (after checking by real
     * path that it is inside that provider's history directory), claude's {@code <sessionId>/} folder next to it and
     * codex's lines in {@code session_index.jsonl}; then the index rows. Shared SQLite stores (opencode, cursor) are
     * refused with {@code SESSION_DELETE_UNSUPPORTED}.
     */
    public void deleteSession(String projectName, String sessionId, String provider) {
        sessions.deleteSession(projectName, sessionId, provider);
    }

    /**
     * Full-text search over message text, best match first: SQLite FTS5 with bm25 over the newest
     * {@link #RANK_CANDIDATES} matches, PostgreSQL {@code websearch_to_tsquery}/{@code ts_rank}. Every word of the
     * query must match (words are letters, digits and {@code _}; other characters separate them).
     *
     * @param provider null for every provider
     */
    public SearchResults search(String query, String provider, int limit) {
        return search.search(query, provider, limit);
    }

    static String displayTitle(String custom, String title, String firstPrompt, String sessionId) {
        return IndexState.displayTitle(custom, title, firstPrompt, sessionId);
    }

    static String key(String provider, String sessionId) {
        return IndexState.key(provider, sessionId);
    }

    /** Stops the background threads (the index stays in the store). */
    @Override
    public synchronized void close() {
        st.closed = true;
        if (st.watcher != null) {
            st.watcher.close();
        }
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        for (Thread t : threads) {
            t.interrupt();
        }
        boolean stopped = true;
        for (Thread t : threads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            stopped &= !t.isAlive();
        }
        FullText ft;
        synchronized (st.fullTextLock) {
            ft = st.fullText;
            st.fullText = null;
            st.fullTextClosed = true;
        }
        if (ft != null) {
            // the writer has stopped: what it handed over is applied, then the search file is marked clean
            ft.close(stopped && !Thread.currentThread().isInterrupted(), Duration.ofSeconds(10));
        }
    }

}
