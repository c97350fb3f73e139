package org.agentworkspace.core.runs;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The process a run starts. The engine never goes through a shell: {@code argv} is passed as is.
 *
 * @param argv       the program and its arguments. A program name without {@code /} is looked up in the
 *                   {@code PATH} of {@code env} (not the server's); the run fails when it is not found.
 * @param env        the complete child environment: nothing of the server's environment is inherited. The engine
 *                   adds {@code AW_RUN_ID=<run id>} (overriding any given value) so that escaped processes can be
 *                   found and killed.
 * @param workingDir the child's working directory (must exist)
 * @param stdin      {@code null}: stdin is {@code /dev/null} (unless {@code interactive}); otherwise this text is
 *                   written to stdin (UTF-8), which is then closed (unless {@code interactive})
 * @param interactive keep stdin open after {@code stdin}: more input is written with {@link RunEngine#write} and
 *                   stdin is closed with {@link RunEngine#closeInput} (or when the run ends)
 */
public record ProcessSpec(List<String> argv, Map<String, String> env, Path workingDir, String stdin,
                          boolean interactive) {
    public ProcessSpec {
        argv = List.copyOf(Objects.requireNonNull(argv, "argv"));
        env = Map.copyOf(Objects.requireNonNull(env, "env"));
        Objects.requireNonNull(workingDir, "workingDir");
        if (argv.isEmpty() || argv.getFirst().isEmpty()) {
            throw new IllegalArgumentException("argv needs a program");
        }
        for (String a : argv) {
            if (a.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("an argument contains NUL");
            }
        }
        for (Map.Entry<String, String> e : env.entrySet()) {
            String k = e.getKey();
            if (k.isEmpty() || k.indexOf('=') >= 0 || k.indexOf('\0') >= 0 || e.getValue().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("invalid environment entry " + k.replace('\0', '?'));
            }
        }
    }

    /** A process whose stdin is {@code /dev/null} ({@code stdin == null}) or this text, then EOF. */
    public ProcessSpec(List<String> argv, Map<String, String> env, Path workingDir, String stdin) {
        this(argv, env, workingDir, stdin, false);
    }

    /** A process with stdin on {@code /dev/null}. */
    public static ProcessSpec of(List<String> argv, Map<String, String> env, Path workingDir) {
        return new ProcessSpec(argv, env, workingDir, null, false);
    }

    public ProcessSpec withStdin(String text) {
        return new ProcessSpec(argv, env, workingDir, text, interactive);
    }

    /**
     * The same process with stdin kept open: {@code first} (may be {@code null}) is written at the start, later
     * lines with {@link RunEngine#write}.
     */
    public ProcessSpec interactive(String first) {
        return new ProcessSpec(argv, env, workingDir, first, true);
    }
}
