package org.agentworkspace.core.runs;

/**
 * Told about runs by the engine ({@link RunEngine#observe}). Both calls happen on the run's own threads, never on the
 * log writer: {@link #starting} on the run's supervisor just before its process is spawned (the run waits for it),
 * {@link #ended} on a fresh virtual thread once the terminal status is stored and the process tree is gone. A
 * failure of an observer is logged and never changes the run.
 */
public interface RunObserver {
    /** The run's process is about to start in {@code workingDir}. */
    default void starting(RunInfo run, java.nio.file.Path workingDir) {
    }

    /**
     * The run's process is about to start in {@code workingDir}; {@code owner} is its typed owner (the run row's
     * columns). By default {@link #starting(RunInfo, java.nio.file.Path)}.
     */
    default void starting(RunInfo run, RunOwner owner, java.nio.file.Path workingDir) {
        starting(run, workingDir);
    }

    /** The run has ended; {@code run} carries its terminal status. */
    default void ended(RunInfo run) {
    }
}
