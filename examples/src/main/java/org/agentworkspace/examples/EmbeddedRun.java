package org.agentworkspace.examples;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.core.runs.LineParser;
import org.agentworkspace.core.runs.ProcessSpec;
import org.agentworkspace.core.runs.RunCursor;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunRequest;
import org.agentworkspace.core.runs.RunSettings;

/**
 * Running a command through the run engine from a plain JVM program, without the HTTP server: the engine starts
 * the process (argv only, exactly the environment given), stores its output as an append-only log, and a reader
 * follows that log, here dropping its cursor halfway and resuming from the last entry it saw, the way an SSE
 * client reconnects with {@code Last-Event-ID}.
 *
 * <p>Run: {@code java -p examples/target/classes:... -m org.agentworkspace.examples/org.agentworkspace.examples.EmbeddedRun /tmp/aw-demo printf 'a\nb\n'}
 */
public final class EmbeddedRun {
    private EmbeddedRun() {
    }

    /** What the example produced: the ended run and every log entry, in the order the reader received them. */
    public record Result(RunInfo run, List<RunEntry> entries) {
    }

    /** A parser that turns every output line into one unified event {@code {"type":"line","length":N}}. */
    static LineParser lineLengths() {
        return new LineParser() {
            @Override
            public List<String> parse(String line) {
                return List.of("{\"type\":\"line\",\"length\":" + line.length() + "}");
            }

            @Override
            public List<String> finish(int exitCode) {
                return List.of("{\"type\":\"complete\",\"exitCode\":" + exitCode + "}");
            }
        };
    }

    public static Result run(Path dataDir, List<String> argv) throws InterruptedException {
        EngineConfig config = EngineConfig.create(dataDir)
                .withRuns(RunSettings.defaults().withTimeouts(Duration.ofMinutes(1), Duration.ofMinutes(5)));
        try (WorkspaceEngine engine = WorkspaceEngine.open(config)) {
            // The complete child environment: nothing of this JVM's environment reaches the child unless given.
            Map<String, String> env = Map.of("PATH", "/usr/local/bin:/usr/bin:/bin", "LANG", "C.UTF-8");
            ProcessSpec process = ProcessSpec.of(argv, env, dataDir);
            RunHandle handle = engine.runs().start(RunRequest.of("example", process, lineLengths())
                    .withMetadata("{\"startedBy\":\"EmbeddedRun\"}"));

            List<RunEntry> received = new ArrayList<>();
            long lastSeen;
            // First connection: read three entries, then "disconnect".
            try (RunCursor cursor = handle.follow(0)) {
                for (int i = 0; i < 3; i++) {
                    cursor.next().ifPresent(received::add);
                }
                lastSeen = cursor.lastSeq();
            }
            // Reconnect with the last seq seen: every later entry arrives exactly once, in order, until the end.
            try (RunCursor cursor = handle.follow(lastSeen)) {
                for (Optional<RunEntry> e = cursor.next(); e.isPresent(); e = cursor.next()) {
                    received.add(e.get());
                }
            }
            RunInfo ended = handle.awaitCompletion(Duration.ofMinutes(1)).orElseThrow();
            return new Result(ended, received);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args.length > 0 ? args[0] : "aw-example-data");
        List<String> argv = args.length > 1 ? List.of(args).subList(1, args.length) : List.of("ls", "-l");
        Result r = run(dir.toAbsolutePath(), argv);
        System.Logger log = System.getLogger(EmbeddedRun.class.getName());
        for (RunEntry e : r.entries()) {
            log.log(System.Logger.Level.INFO, e.seq() + " " + e.kind().wireName() + " " + e.payload());
        }
        log.log(System.Logger.Level.INFO, "run " + r.run().id() + " ended " + r.run().status().wireName());
    }
}
