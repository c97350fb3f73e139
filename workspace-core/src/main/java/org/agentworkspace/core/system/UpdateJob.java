package org.agentworkspace.core.system;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.agentworkspace.core.journal.EventJournal;
import org.agentworkspace.core.journal.MemoryJournal;

/**
 * One update: its events (all kept; an update writes a few hundred at most) and its end. A reader follows it with
 * {@link #eventsAfter}; disconnecting does not stop the update.
 */
public final class UpdateJob {
    /** At most this many log events are kept; later lines are dropped (a note says so once). */
    static final int MAX_LOG_EVENTS = 2000;

    private final InstallMode mode;
    private final Clock clock;
    /** Every event is kept: the log is capped below, progress and the end are a few dozen at most. */
    private final MemoryJournal<UpdateEvent> events = new MemoryJournal<>(MAX_LOG_EVENTS + 1000);
    private final CompletableFuture<UpdateOutcome> finished = new CompletableFuture<>();
    private int logs;
    private boolean terminal;
    private UpdateOutcome result;

    UpdateJob(InstallMode mode, Clock clock) {
        this.mode = mode;
        this.clock = clock;
    }

    public InstallMode mode() {
        return mode;
    }

    /**
     * The job's event journal: ids 1, 2, 3, … ({@link UpdateEvent#id()}); it ends
     * with {@code Done} or {@code Failed}.
     */
    public EventJournal<UpdateEvent> journal() {
        return events;
    }

    /** Events with an id above {@code after}, waiting up to {@code wait} for one; empty when none came. */
    public List<UpdateEvent> eventsAfter(long after, Duration wait) throws InterruptedException {
        return events.after(after, wait);
    }

    /** Completes with the outcome (also when the update failed: then exceptionally, never with a cause shown). */
    public CompletableFuture<UpdateOutcome> finished() {
        return finished;
    }

    public synchronized boolean isFinished() {
        return terminal;
    }

    /** Whether the job finished having put new code in place (the process is about to exit with 42). */
    public synchronized boolean asksForRestart() {
        return result != null && result.selfRestarting();
    }

    /** The outcome when the job finished well. */
    public Optional<UpdateOutcome> outcome() {
        return finished.isDone() && !finished.isCompletedExceptionally() ? Optional.of(finished.join())
                : Optional.empty();
    }

    synchronized void log(String stream, String text) {
        if (terminal) {
            return;
        }
        logs++;
        if (logs == MAX_LOG_EVENTS + 1) {
            events.append(id -> new UpdateEvent.Log(id, "meta", "(further output is not shown)", clock.instant()));
            return;
        }
        if (logs > MAX_LOG_EVENTS) {
            return;
        }
        events.append(id -> new UpdateEvent.Log(id, stream, text, clock.instant()));
    }

    synchronized void progress(String phase, Integer percent, String message) {
        if (!terminal) {
            events.append(id -> new UpdateEvent.Progress(id, phase, percent, message));
        }
    }

    void done(UpdateOutcome outcome) {
        synchronized (this) {
            if (terminal) {
                return;
            }
            events.end(id -> new UpdateEvent.Done(id, outcome));
            result = outcome;
            terminal = true;
        }
        finished.complete(outcome);
    }

    void fail(String code, String message) {
        synchronized (this) {
            if (terminal) {
                return;
            }
            events.end(id -> new UpdateEvent.Failed(id, code, message));
            terminal = true;
        }
        finished.completeExceptionally(new IllegalStateException(code));
    }
}
