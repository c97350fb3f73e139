package org.agentworkspace.core.providers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The one way provider management starts a program (npm, node, a CLI's {@code --version}): an argv list (never a
 * shell), exactly the given environment (the inherited one is cleared), stdin on {@code /dev/null}, stdout and stderr
 * read line by line on their own threads, and {@link #killTree()} that stops the program together with every process
 * it started.
 */
import org.agentworkspace.core.process.Spawner;

public final class ChildProcess implements AutoCloseable {
    /** Longest line passed on; longer ones are cut (npm prints minified stack traces on one line). */
    static final int MAX_LINE = 8192;

    private final Process process;
    private final Thread out;
    private final Thread err;

    private ChildProcess(Process process, Thread out, Thread err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /** Which stream a line came from. */
    public enum Stream { STDOUT, STDERR }

    /**
     * Starts {@code argv}.
     *
     * @param onLine receives every line (without its line break) with its stream; called from the reader threads
     */
    public static ChildProcess start(List<String> argv, Map<String, String> env, Path cwd,
                                     BiConsumer<Stream, String> onLine) throws IOException {
        Process p = Spawner.start(argv, env, cwd, Spawner.Stdin.NULL);
        Thread o = Thread.ofVirtual().name("child-out-" + p.pid()).start(() -> pump(p.getInputStream(),
                line -> onLine.accept(Stream.STDOUT, line)));
        Thread e = Thread.ofVirtual().name("child-err-" + p.pid()).start(() -> pump(p.getErrorStream(),
                line -> onLine.accept(Stream.STDERR, line)));
        return new ChildProcess(p, o, e);
    }

    /** The result of a short program run to completion. */
    public record Result(int exitCode, String stdout, String stderr, boolean timedOut) {
        public boolean ok() {
            return !timedOut && exitCode == 0;
        }
    }

    /**
     * Runs a short program to completion (version probes, {@code npm view}); the tree is killed after
     * {@code timeout}. Output beyond 1 MiB per stream is dropped.
     */
    public static Result run(List<String> argv, Map<String, String> env, Path cwd, Duration timeout)
            throws IOException, InterruptedException {
        StringBuilder so = new StringBuilder();
        StringBuilder se = new StringBuilder();
        try (ChildProcess c = start(argv, env, cwd, (s, line) -> {
            StringBuilder b = s == Stream.STDOUT ? so : se;
            synchronized (b) {
                if (b.length() < 1 << 20) {
                    b.append(line).append('\n');
                }
            }
        })) {
            Optional<Integer> exit = c.waitFor(timeout);
            if (exit.isEmpty()) {
                c.killTree();
                return new Result(-1, text(so), text(se), true);
            }
            return new Result(exit.get(), text(so), text(se), false);
        }
    }

    private static String text(StringBuilder b) {
        synchronized (b) {
            return b.toString();
        }
    }

    public long pid() {
        return process.pid();
    }

    /** The exit code once the program and its output have ended, or empty when {@code timeout} passed first. */
    public Optional<Integer> waitFor(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return Optional.empty();
        }
        // output already written is still being read: let the readers finish (a grandchild holding the pipe open
        // must not keep us waiting, hence the bound)
        out.join(Duration.ofSeconds(5));
        err.join(Duration.ofSeconds(5));
        return Optional.of(process.exitValue());
    }

    /** Completes when the program itself has exited (its descendants may live on; see {@link #killTree()}). */
    public java.util.concurrent.CompletableFuture<Process> onExit() {
        return process.onExit();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Kills the program and every process it started, and checks that none is left. Descendants are collected
     * before anything is killed (once a parent dies its children are re-parented and can no longer be found
     * through it), then every process seen is killed with SIGKILL, repeatedly, until no known process is alive
     * and no new descendant appears.
     *
     * @return the processes still alive afterwards (empty on success)
     */
    public List<ProcessHandle> killTree() throws InterruptedException {
        Set<ProcessHandle> known = new LinkedHashSet<>();
        known.add(process.toHandle());
        for (int round = 0; round < 50; round++) {
            boolean grew = false;
            for (ProcessHandle h : List.copyOf(known)) {
                if (h.isAlive()) {
                    for (ProcessHandle d : h.descendants().toList()) {
                        grew |= known.add(d);
                    }
                }
            }
            for (ProcessHandle h : known) {
                if (h.isAlive()) {
                    h.destroyForcibly();
                }
            }
            Thread.sleep(20);
            boolean anyAlive = known.stream().anyMatch(ProcessHandle::isAlive);
            if (!anyAlive && !grew) {
                break;
            }
        }
        for (ProcessHandle h : known) {
            h.onExit().completeOnTimeout(h, 2, TimeUnit.SECONDS).join();
        }
        List<ProcessHandle> left = new ArrayList<>();
        for (ProcessHandle h : known) {
            if (h.isAlive()) {
                left.add(h);
            }
        }
        return left;
    }

    /** Kills the tree if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                killTree();
            } catch (InterruptedException e) {
                // the whole tree got SIGKILL at least once before the wait was interrupted
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void pump(InputStream in, java.util.function.Consumer<String> onLine) {
        try (in) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    byte b = buf[i];
                    if (b == '\n') {
                        emit(line, onLine);
                    } else if (line.size() < MAX_LINE) {
                        line.write(b);
                    }
                }
            }
            if (line.size() > 0) {
                emit(line, onLine);
            }
        } catch (IOException e) {
            // the process went away or its pipe was closed by a kill: nothing more to read
        }
    }

    private static void emit(ByteArrayOutputStream line, java.util.function.Consumer<String> onLine) {
        String s = line.toString(StandardCharsets.UTF_8);
        line.reset();
        if (s.endsWith("\r")) {
            s = s.substring(0, s.length() - 1);
        }
        onLine.accept(s);
    }
}
