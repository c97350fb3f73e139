package org.agentworkspace.core.system;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One update: its events (all kept; an update writes a few hundred at most) and its end. A reader follows it with
 * {@link #eventsAfter}; disconnecting does not stop the update.
 */
public final class UpdateJob {
    /** At most this many log events are kept; later lines are dropped (a note says so once). */
    static final int MAX_LOG_EVENTS = 2000;

    private final InstallMode mode;
    private final Clock clock;
    private final List<UpdateEvent> events = new ArrayList<>();
    private final CompletableFuture<UpdateOutcome> finished = new CompletableFuture<>();
    private long nextId = 1;
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

    /** Events with an id above {@code after}, waiting up to {@code wait} for one; empty when none came. */
    public List<UpdateEvent> eventsAfter(long after, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (this) {
            while (nextId - 1 <= after && !terminal) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return List.of();
                }
                wait(Math.max(1, left / 1_000_000));
            }
            List<UpdateEvent> out = new ArrayList<>();
            for (UpdateEvent e : events) {
                if (e.id() > after) {
                    out.add(e);
                }
            }
            return out;
        }
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
            add(new UpdateEvent.Log(nextId++, "meta", "(further output is not shown)", clock.instant()));
            return;
        }
        if (logs > MAX_LOG_EVENTS) {
            return;
        }
        add(new UpdateEvent.Log(nextId++, stream, text, clock.instant()));
    }

    synchronized void progress(String phase, Integer percent, String message) {
        if (!terminal) {
            add(new UpdateEvent.Progress(nextId++, phase, percent, message));
        }
    }

    void done(UpdateOutcome outcome) {
        synchronized (this) {
            if (terminal) {
                return;
            }
            add(new UpdateEvent.Done(nextId++, outcome));
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
            add(new UpdateEvent.Failed(nextId++, code, message));
            terminal = true;
        }
        finished.completeExceptionally(new IllegalStateException(code));
    }

    private void add(UpdateEvent e) {
        events.add(e);
        notifyAll();
    }
}
