package org.agentworkspace.core.runs;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.agentworkspace.core.process.Spawner;

/**
 * The life of one started run, on its own virtual thread: launch the process, read stdout and stderr on two more
 * virtual threads, watch the timeouts and stop requests, kill the tree, and write the terminal status.
 */
final class RunProcess implements Runnable {
    private static final System.Logger LOG = System.getLogger(RunProcess.class.getName());
    /** How long a kill may take before the engine gives up and reports survivors. */
    static final Duration KILL_DEADLINE = Duration.ofSeconds(5);
    /** How long the readers may take to reach the end of output once every process is gone. */
    private static final Duration DRAIN = Duration.ofSeconds(5);
    /** The reason of a run stopped by {@link RunSettings#maxRunBytes()}, before the limit and its unit. */
    static final String OUTPUT_LIMIT = "output limit: stopped after storing ";

    private final RunEngine engine;
    private final ActiveRun run;
    private final RunSettings settings;

    private volatile long lastActivity;
    /** Used by the stdout reader thread only. */
    private boolean storingStdout = true;
    private long stdoutBytes;

    RunProcess(RunEngine engine, ActiveRun run) {
        this.engine = engine;
        this.run = run;
        this.settings = engine.settings();
    }

    @Override
    public void run() {
        try {
            body();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "run " + run.id + " failed inside the engine", e);
            end(RunStatus.FAILED, "internal error in the run engine", null, null);
        } finally {
            engine.released(run);
        }
    }

    private void body() {
        ProcessSpec spec = run.request.process();
        if (run.stopRequested() != null) {
            ActiveRun.Stop s = run.stopRequested();
            end(s.status(), s.reason(), null, null);
            return;
        }
        if (!Files.isDirectory(spec.workingDir())) {
            end(RunStatus.FAILED, "could not start: the working directory does not exist", null, null);
            return;
        }
        Optional<String> program = resolve(spec.argv().getFirst(), spec.env());
        if (program.isEmpty()) {
            end(RunStatus.FAILED, "could not start: executable not found: " + spec.argv().getFirst(), null, null);
            return;
        }
        engine.starting(run, spec.workingDir());
        if (run.stopRequested() != null) {
            ActiveRun.Stop s = run.stopRequested();
            end(s.status(), s.reason(), null, null);
            return;
        }
        List<String> command = new ArrayList<>();
        engine.setsid().ifPresent(s -> command.addAll(List.of(s.toString(), "-w", "--")));
        command.add(program.get());
        command.addAll(spec.argv().subList(1, spec.argv().size()));
        Map<String, String> env = new java.util.HashMap<>(spec.env());
        env.put(ProcessTree.MARKER, run.id);
        Process p;
        try {
            p = Spawner.start(command, env, spec.workingDir(), spec.stdin() == null && !spec.interactive()
                    ? Spawner.Stdin.NULL : Spawner.Stdin.PIPE);
        } catch (IOException | IllegalArgumentException e) {
            end(RunStatus.FAILED, "could not start: " + e.getMessage(), null, null);
            return;
        }
        long started = System.nanoTime();
        lastActivity = started;
        ProcessTree.Target tree = ProcessTree.Target.of(p, engine.setsid().isPresent(), run.id);
        ObjectNode running = engine.json().object().put("status", RunStatus.RUNNING.wireName()).put("pid", p.pid());
        run.append(engine.log(), engine.clock(), EntryKind.STATUS, running.toString(),
                new EventLog.RowChange(RunStatus.RUNNING, engine.clock().instant(), null, null, null));
        p.onExit().thenRun(run::wake);
        if (spec.interactive()) {
            run.inputStarted(p.getOutputStream(), spec.stdin());
        } else if (spec.stdin() != null) {
            Thread.ofPlatform().daemon().name("aw-run-in-" + run.id).start(() -> writeStdin(p, spec.stdin()));
        } else {
            closeQuietly(p.getOutputStream());
        }
        // platform threads: a process pipe is read in native code, which holds a virtual thread's carrier for as
        // long as the CLI is silent; two silent runs on a 2-core host held every carrier, so no other virtual
        // thread (HTTP handlers, the mock LLM the CLI was waiting for) could run
        Thread out = Thread.ofPlatform().daemon().name("aw-run-out-" + run.id).start(() -> readStdout(p));
        Thread err = Thread.ofPlatform().daemon().name("aw-run-err-" + run.id).start(() -> readStderr(p));

        ActiveRun.Stop ending = null;
        String timeout = null;
        while (p.isAlive()) {
            ActiveRun.Stop stop = run.stopRequested();
            if (stop != null) {
                ending = stop;
                break;
            }
            long now = System.nanoTime();
            long totalLeft = started + settings.totalTimeout().toNanos() - now;
            long idleLeft = lastActivity + settings.inactivityTimeout().toNanos() - now;
            if (totalLeft <= 0) {
                timeout = "total";
                ending = new ActiveRun.Stop(RunStatus.TIMED_OUT,
                        "total timeout: ran longer than " + human(settings.totalTimeout()));
                break;
            }
            if (idleLeft <= 0) {
                timeout = "inactivity";
                ending = new ActiveRun.Stop(RunStatus.TIMED_OUT,
                        "inactivity timeout: no output for " + human(settings.inactivityTimeout()));
                break;
            }
            run.awaitWake(Math.min(totalLeft, idleLeft));
        }
        // Whatever ended it, nothing the run started may stay: early ends get SIGTERM and the grace period first;
        // leftovers of a process that exited on its own are killed at once.
        int left = engine.tree().kill(tree, ending != null ? settings.killGrace() : Duration.ZERO, KILL_DEADLINE);
        int exit = waitForExit(p);
        if (ending == null) {
            // a stop asked for while the process was exiting on its own still decides how the run ends: a cancel
            // whose permission denial made the CLI finish is a cancelled run, not a succeeded one
            ending = run.stopRequested();
        }
        run.closeInput();
        join(out);
        join(err);
        // The parser's closing events are stored even after an output flood: they are few, and readers wait for them.
        List<String> events;
        try {
            events = run.request.parser().finish(exit);
        } catch (RuntimeException e) {
            events = List.of();
            parseError(-1, e);
        }
        for (String ev : events) {
            event(ev, -1);
        }
        ObjectNode extra = engine.json().object();
        if (timeout != null) {
            extra.put("timeout", timeout);
        }
        if (ending != null && ending.reason().startsWith(OUTPUT_LIMIT)) {
            extra.put("limit", "output");
        }
        if (left > 0) {
            extra.put("leftoverProcesses", left);
        }
        if (ending != null) {
            end(ending.status(), ending.reason(), exit, extra);
        } else if (exit == 0) {
            end(RunStatus.SUCCEEDED, null, exit, extra);
        } else {
            end(RunStatus.FAILED, "exit code " + exit, exit, extra);
        }
    }

    private void readStdout(Process p) {
        LineReader reader = new LineReader(p.getInputStream(), settings.maxLineBytes(),
                n -> lastActivity = System.nanoTime());
        try {
            LineReader.Line line;
            while ((line = reader.next()) != null) {
                if (!storingStdout || (line.text().isEmpty() && !line.truncated())) {
                    continue;
                }
                // What is stored counts, not what the CLI wrote: a cut line stores at most maxLineBytes, so one huge
                // line no longer uses up the whole budget and hides the result that follows it.
                stdoutBytes += Math.min(line.bytes(), settings.maxLineBytes()) + 1;
                if (stdoutBytes > settings.maxRunBytes()) {
                    storingStdout = false;
                    append(EntryKind.TRUNCATED, engine.json().object().put("what", "output")
                            .put("limit", settings.maxRunBytes()).toString());
                    // A CLI that keeps printing past the cap is stopped rather than drained until its timeout.
                    run.requestStop(new ActiveRun.Stop(RunStatus.FAILED, OUTPUT_LIMIT + settings.maxRunBytes()
                            + " bytes of output"));
                    continue;
                }
                long seq = append(EntryKind.NATIVE, engine.json().line(line.text(), line.truncated()));
                if (line.truncated()) {
                    append(EntryKind.TRUNCATED, engine.json().object().put("what", "line")
                            .put("limit", settings.maxLineBytes()).put("bytes", line.bytes()).put("seq", seq)
                            .toString());
                    continue;
                }
                List<String> events;
                try {
                    events = run.request.parser().parse(line.text());
                } catch (RuntimeException e) {
                    parseError(seq, e);
                    continue;
                }
                for (String ev : events) {
                    event(ev, seq);
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "run " + run.id + ": stdout ended with an error", e);
        }
    }

    private void readStderr(Process p) {
        LineReader reader = new LineReader(p.getErrorStream(),
                Math.min(settings.maxLineBytes(), settings.maxStderrBytes()), n -> lastActivity = System.nanoTime());
        long bytes = 0;
        boolean storing = true;
        try {
            LineReader.Line line;
            while ((line = reader.next()) != null) {
                if (!storing || (line.text().isEmpty() && !line.truncated())) {
                    continue;
                }
                bytes += line.bytes() + 1;
                if (bytes > settings.maxStderrBytes()) {
                    storing = false;
                    append(EntryKind.TRUNCATED, engine.json().object().put("what", "stderr")
                            .put("limit", settings.maxStderrBytes()).toString());
                    continue;
                }
                append(EntryKind.STDERR, engine.json().line(line.text(), line.truncated()));
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "run " + run.id + ": stderr ended with an error", e);
        }
    }

    private void event(String payload, long seq) {
        if (engine.json().isObject(payload)) {
            append(EntryKind.EVENT, payload);
        } else {
            ObjectNode n = engine.json().object();
            if (seq > 0) {
                n.put("seq", seq);
            }
            append(EntryKind.PARSE_ERROR, n.put("error", "the parser returned something that is not one JSON object")
                    .toString());
        }
    }

    private void parseError(long seq, RuntimeException e) {
        LOG.log(System.Logger.Level.DEBUG, "run " + run.id + ": the parser failed", e);
        ObjectNode n = engine.json().object();
        if (seq > 0) {
            n.put("seq", seq);
        }
        String message = e.getMessage();
        append(EntryKind.PARSE_ERROR, n.put("error", e.getClass().getSimpleName()
                + (message == null ? "" : ": " + message)).toString());
    }

    private long append(EntryKind kind, String payload) {
        return run.append(engine.log(), engine.clock(), kind, payload, null);
    }

    private void end(RunStatus status, String reason, Integer exit, ObjectNode extra) {
        ObjectNode n = engine.json().object().put("status", status.wireName());
        if (reason != null) {
            n.put("reason", reason);
        }
        if (exit != null) {
            n.put("exitCode", exit);
        }
        if (extra != null) {
            n.setAll(extra);
        }
        run.append(engine.log(), engine.clock(), EntryKind.STATUS, n.toString(),
                new EventLog.RowChange(status, null, engine.clock().instant(), exit, reason));
    }

    private void writeStdin(Process p, String text) {
        try (OutputStream os = p.getOutputStream()) {
            os.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "run " + run.id + ": stdin closed early", e);
        }
    }

    private static int waitForExit(Process p) {
        while (true) {
            try {
                return p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void join(Thread t) {
        try {
            if (!t.join(DRAIN)) {
                LOG.log(System.Logger.Level.WARNING, "run " + run.id + ": output did not end within " + DRAIN
                        + " after its processes were gone; later output is dropped");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The program to execute: as given when it contains a {@code /}, else the first executable regular file of that
     * name in the child environment's {@code PATH} (absolute entries only; the server's own PATH plays no part).
     */
    static Optional<String> resolve(String program, Map<String, String> env) {
        if (program.contains("/")) {
            return Optional.of(program);
        }
        String path = env.get("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(":")) {
            if (dir.isEmpty() || !dir.startsWith("/")) {
                continue;
            }
            Path candidate = Path.of(dir, program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate.toString());
            }
        }
        return Optional.empty();
    }

    private static void closeQuietly(OutputStream os) {
        try {
            os.close();
        } catch (IOException e) {
            // nothing was written; the pipe is gone either way
        }
    }

    static String human(Duration d) {
        long s = d.toSeconds();
        if (s == 0) {
            return d.toMillis() + " ms";
        }
        if (s % 3600 == 0) {
            return s / 3600 + " h";
        }
        if (s % 60 == 0) {
            return s / 60 + " min";
        }
        return s + " s";
    }
}
