package org.agentworkspace.core.runs;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;

import org.agentworkspace.core.journal.JournalCursor;

/**
 * A reader of one run's log: every entry after the starting sequence number, exactly once, in order, ending after
 * the terminal status entry. It reads what is stored first, then waits for new entries (woken in-process as soon
 * as they are committed; runs this engine does not own are polled). SSE, WebSocket and NDJSON writers loop over it;
 * a client that reconnects with {@code Last-Event-ID} gets a new cursor from that number. The run's
 * {@link RunEngine#journal journal} hands these out.
 *
 * <p>One thread at a time; not shared. Closing only marks it closed: it holds no store resources between calls.
 */
public final class RunCursor implements JournalCursor<RunEntry> {
    private static final int PAGE = 512;

    private final RunEngine engine;
    private final String runId;
    private final ArrayDeque<RunEntry> buffer = new ArrayDeque<>();
    private long lastSeq;
    private boolean finished;
    private boolean closed;

    RunCursor(RunEngine engine, String runId, long afterSeq) {
        this.engine = engine;
        this.runId = runId;
        this.lastSeq = afterSeq;
    }

    public String runId() {
        return runId;
    }

    /** The seq of the last entry returned (or the starting number): what a client resumes from. */
    @Override
    public long lastSeq() {
        return lastSeq;
    }

    /** True once the terminal status entry was returned, or the run had ended before this cursor's start. */
    @Override
    public boolean finished() {
        return finished && buffer.isEmpty();
    }

    /**
     * The next entry, waiting up to {@code timeout} for it.
     *
     * @return the entry; empty when the time is up (send a keep-alive and call again) or the log has ended
     *         ({@link #finished()})
     */
    @Override
    public Optional<RunEntry> poll(Duration timeout) throws InterruptedException {
        if (closed) {
            throw new IllegalStateException("the cursor is closed");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            RunEntry e = buffer.poll();
            if (e != null) {
                lastSeq = e.seq();
                if (e.kind() == EntryKind.STATUS
                        && engine.json().statusOf(e.payload()).map(RunStatus::terminal).orElse(false)) {
                    finished = true;
                    buffer.clear();
                }
                return Optional.of(e);
            }
            // taken before the read: a notice that arrives between the read and the wait still wakes it
            long notices = engine.wakeups().generation(runId);
            if (!finished && fill()) {
                continue;
            }
            if (finished) {
                return Optional.empty();
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            long wait = Math.min(left, engine.settings().pollInterval().toNanos());
            Optional<ActiveRun> run = engine.activeRun(runId);
            if (run.isPresent()) {
                run.get().awaitCommitted(lastSeq, wait);
            } else {
                // another node's run (or an ended one): woken by that node's notice, else after the poll interval
                engine.wakeups().await(runId, notices, wait);
            }
        }
    }

    /** The next entry, waiting as long as it takes; empty once the log has ended. */
    public Optional<RunEntry> next() throws InterruptedException {
        while (true) {
            Optional<RunEntry> e = poll(Duration.ofMinutes(1));
            if (e.isPresent() || finished()) {
                return e;
            }
        }
    }

    /** Reads newer entries into the buffer; true when some came. Sets {@code finished} when there are none left. */
    private boolean fill() {
        Optional<ActiveRun> run = engine.activeRun(runId);
        List<RunEntry> got = run.map(r -> r.committedAfter(lastSeq, PAGE)).orElse(null);
        if (got == null) {
            got = engine.log().read(runId, lastSeq, PAGE);
        }
        if (!got.isEmpty()) {
            buffer.addAll(got);
            return true;
        }
        if (run.isPresent()) {
            if (run.get().ended() && run.get().committedSeq() <= lastSeq) {
                finished = true;
            }
            return false;
        }
        // Not owned here: a stored terminal status means every entry is stored (same transaction). Read once more
        // to close the race with a commit between the read above and this check.
        if (engine.find(runId).map(i -> i.status().terminal()).orElse(true)) {
            got = engine.log().read(runId, lastSeq, PAGE);
            if (!got.isEmpty()) {
                buffer.addAll(got);
                return true;
            }
            finished = true;
        }
        return false;
    }

    @Override
    public void close() {
        closed = true;
        buffer.clear();
    }
}
