package org.agentworkspace.core.runs;

import java.time.Duration;
import java.util.Optional;

/** A started run: its id and shortcuts to the engine's operations on it. */
public final class RunHandle {
    private final RunEngine engine;
    private final String id;

    RunHandle(RunEngine engine, String id) {
        this.engine = engine;
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** The run as stored now. */
    public RunInfo info() {
        return engine.find(id).orElseThrow();
    }

    /** A reader from entry {@code afterSeq + 1}; {@code 0} for the whole log. */
    public RunCursor follow(long afterSeq) {
        return engine.follow(id, afterSeq);
    }

    public boolean cancel() {
        return engine.cancel(id);
    }

    /** The ended run, or empty when {@code timeout} passed first. */
    public Optional<RunInfo> awaitCompletion(Duration timeout) throws InterruptedException {
        return engine.awaitCompletion(id, timeout);
    }

    @Override
    public String toString() {
        return "RunHandle[" + id + "]";
    }
}
