package org.agentworkspace.core.process;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.pty4j.PtyProcess;
import com.pty4j.PtyProcessBuilder;

/**
 * Starts child processes, and is the only class that does. Every start takes an argv list whose first element is
 * an absolute program path (never a shell string, never a name looked up on a PATH here), an environment that
 * replaces the inherited one entirely, and a working directory. Stopping whole process trees is the caller's
 * ({@code ProcessTree} for runs, {@code ChildProcess#killTree} for short jobs, the terminal's own reaper).
 */
public final class Spawner {
    /** What the child's standard input is. */
    public enum Stdin {
        /** {@code /dev/null}: the child reads end-of-file at once. */
        NULL,
        /** A pipe the caller writes to ({@link Process#getOutputStream()}). */
        PIPE
    }

    private Spawner() {
    }

    /**
     * Starts {@code argv} with exactly {@code env} in {@code cwd} (the caller's directory when null); standard output
     * and error are pipes.
     */
    public static Process start(List<String> argv, Map<String, String> env, Path cwd, Stdin stdin)
            throws IOException {
        check(argv);
        ProcessBuilder pb = new ProcessBuilder(List.copyOf(argv));
        pb.environment().clear();
        pb.environment().putAll(Objects.requireNonNull(env, "env"));
        if (cwd != null) {
            pb.directory(cwd.toFile());
        }
        pb.redirectInput(stdin == Stdin.NULL ? ProcessBuilder.Redirect.from(new File("/dev/null"))
                : ProcessBuilder.Redirect.PIPE);
        return pb.start();
    }

    /**
     * Starts {@code argv} on a new pseudo-terminal of {@code cols} × {@code rows} with exactly {@code env} in
     * {@code cwd}; standard error is merged into the terminal's output.
     */
    public static PtyProcess startPty(List<String> argv, Map<String, String> env, Path cwd, int cols, int rows)
            throws IOException {
        check(argv);
        return new PtyProcessBuilder(argv.toArray(String[]::new))
                .setDirectory(Objects.requireNonNull(cwd, "cwd").toString())
                .setEnvironment(Map.copyOf(env))
                .setInitialColumns(cols)
                .setInitialRows(rows)
                .setConsole(false)
                .setRedirectErrorStream(true)
                .start();
    }

    private static void check(List<String> argv) {
        if (argv == null || argv.isEmpty() || !Path.of(argv.getFirst()).isAbsolute()) {
            throw new IllegalArgumentException("argv must start with an absolute program path");
        }
        for (String a : argv) {
            if (a == null || a.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("argv elements must be non-null and free of NUL characters");
            }
        }
    }
}
