package org.agentworkspace.core.runs;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The in-memory side of a run this engine owns, from {@code start} until its terminal status is committed.
 *
 * <p>Append side: one lock assigns the next sequence number and hands the entry to the log writer while held, so
 * the writer's queue holds each run's entries in sequence order and no number is skipped. After the terminal status
 * the run is sealed: later appends (a reader thread that outlived its process) are dropped.
 *
 * <p>Committed side: the writer publishes entries here after their transaction commits; readers take recent ones
 * from a ring buffer instead of the store and wait on a condition for more.
 */
final class ActiveRun {
    /** A request to end the run early, with the status and reason it ends with. */
    record Stop(RunStatus status, String reason) {
    }

    private static final int RING = 4096;
    private static final long RING_MAX_WEIGHT = 8L << 20;

    final String id;
    final RunRequest request;
    /** The outcome its events reported so far; touched by the log writer only. */
    final OutcomeFold outcome;
    private final Consumer<ActiveRun> onEnded;

    private final ReentrantLock appendLock = new ReentrantLock();
    private long nextSeq;
    private boolean sealed;

    private final ReentrantLock tailLock = new ReentrantLock();
    private final Condition committedMore = tailLock.newCondition();
    private final RunEntry[] ring = new RunEntry[RING];
    private long firstSeq = 1;
    private long committedSeq;
    private long ringWeight;
    private boolean ended;
    private final CountDownLatch done = new CountDownLatch(1);

    private final AtomicReference<Stop> stop = new AtomicReference<>();

    /** Interactive stdin: text written before the process started waits in {@link #pendingInput}. */
    private final ReentrantLock inputLock = new ReentrantLock();
    private OutputStream stdin;
    private final List<String> pendingInput = new ArrayList<>();
    private boolean inputClosed;
    private final ReentrantLock wakeLock = new ReentrantLock();
    private final Condition wake = wakeLock.newCondition();
    private boolean woken;

    /**
     * @param nextSeq the number of the next entry (the first ones were written with the run)
     * @param onEnded called once the terminal status is committed, before {@link #awaitDone} returns
     */
    ActiveRun(String id, RunRequest request, long nextSeq, Consumer<ActiveRun> onEnded) {
        this.id = id;
        this.outcome = new OutcomeFold();
        this.request = request;
        this.nextSeq = nextSeq;
        this.onEnded = onEnded;
    }

    String provider() {
        return request.provider();
    }

    /** The account the run is charged to, or null. */
    String account() {
        return request.account();
    }

    /**
     * Appends one entry (numbered here) and, for a status entry, the run row change that goes with it.
     *
     * @return the entry's seq, or -1 when the run is already sealed
     */
    long append(EventLog log, Clock clock, EntryKind kind, String payload, EventLog.RowChange change) {
        appendLock.lock();
        try {
            if (sealed) {
                return -1;
            }
            long seq = nextSeq++;
            if (change != null && change.status().terminal()) {
                sealed = true;
            }
            // millisecond precision: what the store keeps, so an entry read live equals the same entry read back
            RunEntry entry = new RunEntry(id, seq, kind, payload, clock.instant().truncatedTo(ChronoUnit.MILLIS));
            log.enqueue(new EventLog.Pending(this, entry, change));
            return seq;
        } finally {
            appendLock.unlock();
        }
    }

    boolean sealed() {
        appendLock.lock();
        try {
            return sealed;
        } finally {
            appendLock.unlock();
        }
    }

    /** Called by the log writer after a commit, with this run's entries of the batch in seq order. */
    /**
     * For a run taken over from another node: its log in memory starts at entry {@code seq} (the earlier ones are
     * read from the store). Called before the first {@link #committed}.
     */
    void startsAt(long seq) {
        tailLock.lock();
        try {
            firstSeq = seq;
        } finally {
            tailLock.unlock();
        }
    }

    void committed(List<RunEntry> entries, Json json) {
        boolean nowEnded = false;
        tailLock.lock();
        try {
            for (RunEntry e : entries) {
                RunEntry old = ring[(int) (e.seq() % RING)];
                if (old != null && old.seq() >= firstSeq) {
                    ringWeight -= old.weight();
                    firstSeq = old.seq() + 1;
                }
                ring[(int) (e.seq() % RING)] = e;
                ringWeight += e.weight();
                committedSeq = e.seq();
                while (ringWeight > RING_MAX_WEIGHT && firstSeq < committedSeq) {
                    RunEntry drop = ring[(int) (firstSeq % RING)];
                    ring[(int) (firstSeq % RING)] = null;
                    ringWeight -= drop.weight();
                    firstSeq++;
                }
                if (e.kind() == EntryKind.STATUS && json.statusOf(e.payload()).map(RunStatus::terminal).orElse(false)) {
                    ended = true;
                    nowEnded = true;
                }
            }
            committedMore.signalAll();
        } finally {
            tailLock.unlock();
        }
        if (nowEnded) {
            onEnded.accept(this);
            done.countDown();
        }
    }

    /**
     * Committed entries after {@code afterSeq} from the ring buffer, at most {@code max}: an empty list when there is
     * nothing newer, {@code null} when the buffer no longer holds {@code afterSeq + 1} (read the store instead).
     */
    List<RunEntry> committedAfter(long afterSeq, int max) {
        tailLock.lock();
        try {
            if (committedSeq <= afterSeq) {
                return List.of();
            }
            if (afterSeq + 1 < firstSeq) {
                return null;
            }
            List<RunEntry> out = new ArrayList<>((int) Math.min(max, committedSeq - afterSeq));
            for (long s = afterSeq + 1; s <= committedSeq && out.size() < max; s++) {
                out.add(ring[(int) (s % RING)]);
            }
            return out;
        } finally {
            tailLock.unlock();
        }
    }

    /** Waits until an entry after {@code afterSeq} is committed, the run ended, or the time is up. */
    void awaitCommitted(long afterSeq, long nanos) throws InterruptedException {
        tailLock.lock();
        try {
            while (committedSeq <= afterSeq && !ended && nanos > 0) {
                nanos = committedMore.awaitNanos(nanos);
            }
        } finally {
            tailLock.unlock();
        }
    }

    /** True once the terminal status entry is committed. */
    boolean ended() {
        tailLock.lock();
        try {
            return ended;
        } finally {
            tailLock.unlock();
        }
    }

    long committedSeq() {
        tailLock.lock();
        try {
            return committedSeq;
        } finally {
            tailLock.unlock();
        }
    }

    boolean awaitDone(long nanos) throws InterruptedException {
        return done.await(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Writes text to the process's stdin (an interactive run), or keeps it until the process has started.
     *
     * @return false when stdin is closed (or the process stopped reading)
     */
    boolean writeInput(String text) {
        inputLock.lock();
        try {
            if (inputClosed) {
                return false;
            }
            if (stdin == null) {
                pendingInput.add(text);
                return true;
            }
            return writeLocked(text);
        } finally {
            inputLock.unlock();
        }
    }

    /** The process started: its stdin, with what was written before (the first input first). */
    void inputStarted(OutputStream os, String first) {
        inputLock.lock();
        try {
            stdin = os;
            if (first != null && !inputClosed) {
                writeLocked(first);
            }
            for (String t : pendingInput) {
                if (inputClosed || !writeLocked(t)) {
                    break;
                }
            }
            pendingInput.clear();
            if (inputClosed) {
                closeQuietly(os);
            }
        } finally {
            inputLock.unlock();
        }
    }

    /** Closes stdin (EOF for the process); later writes are refused. True when it was open. */
    boolean closeInput() {
        inputLock.lock();
        try {
            if (inputClosed) {
                return false;
            }
            inputClosed = true;
            pendingInput.clear();
            if (stdin != null) {
                closeQuietly(stdin);
            }
            return true;
        } finally {
            inputLock.unlock();
        }
    }

    private boolean writeLocked(String text) {
        try {
            stdin.write(text.getBytes(StandardCharsets.UTF_8));
            stdin.flush();
            return true;
        } catch (IOException e) {
            inputClosed = true;
            closeQuietly(stdin);
            return false;
        }
    }

    private static void closeQuietly(OutputStream os) {
        try {
            os.close();
        } catch (IOException e) {
            // the pipe is gone either way
        }
    }

    /** Asks the run to end early; the first request wins. True when this request was the first. */
    boolean requestStop(Stop s) {
        boolean first = markStop(s);
        wake();
        return first;
    }

    /**
     * Records how the run is to end without waking its supervisor yet (the caller wakes it); the first request wins.
     * A process that exits on its own after this still ends the run with this status.
     */
    boolean markStop(Stop s) {
        return stop.compareAndSet(null, s);
    }

    Stop stopRequested() {
        return stop.get();
    }

    /** Wakes the run's supervisor (process exit, stop request). */
    void wake() {
        wakeLock.lock();
        try {
            woken = true;
            wake.signalAll();
        } finally {
            wakeLock.unlock();
        }
    }

    /** The supervisor's wait: until woken or the time is up. */
    void awaitWake(long nanos) {
        wakeLock.lock();
        try {
            while (!woken && nanos > 0) {
                nanos = wake.awaitNanos(nanos);
            }
            woken = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            wakeLock.unlock();
        }
    }
}
