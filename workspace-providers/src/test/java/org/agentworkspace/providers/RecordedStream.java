package org.agentworkspace.providers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.agentworkspace.testkit.realcli.Recordings;

/**
 * One golden input: a stream recorded from a real CLI (testkit recordings), or for cursor (not installable) the
 * synthetic stream its fake replays, read from the fake's data directory.
 */
record RecordedStream(String provider, String scenario, List<String> lines, int exitCode, String sessionId,
        boolean synthetic) {

    static final List<String> SCENARIOS = List.of("plain", "tool-write", "resume");

    static List<RecordedStream> all(Path scratch) {
        List<RecordedStream> out = new ArrayList<>();
        for (String p : Recordings.PROVIDERS) {
            for (String s : SCENARIOS) {
                if (Recordings.exists(p, s)) {
                    var meta = Recordings.meta(p, s);
                    String sid = meta.path("sessionId").isTextual() && !meta.path("sessionId").asText().isEmpty()
                            ? meta.path("sessionId").asText() : null;
                    out.add(new RecordedStream(p, s, Recordings.streamLines(p, s), meta.path("exitCode").asInt(),
                            sid, false));
                }
            }
        }
        out.addAll(realErrorStreams());
        Path bin = FakeClis.install(scratch.resolve("fake-bin"), List.of("cursor"));
        Path data = bin.resolve(".aw-fake-cli").resolve("cursor");
        for (String s : SCENARIOS) {
            try {
                out.add(new RecordedStream("cursor", s, Files.readAllLines(data.resolve(s + ".jsonl")), 0,
                        Files.readString(data.resolve(s + ".session")).strip(), true));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /**
     * Streams of the real CLIs answering HTTP 401, captured by {@code RealCliRun} with {@code -Daw.golden.update=true}
     * into {@code src/test/resources/streams/<provider>/error-401.jsonl} (+ {@code .meta.json} with the exit code).
     */
    static List<RecordedStream> realErrorStreams() {
        List<RecordedStream> out = new ArrayList<>();
        Path root = Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "src", "test", "resources",
                "streams");
        for (String p : Recordings.PROVIDERS) {
            Path stream = root.resolve(p).resolve("error-401.jsonl");
            if (!Files.exists(stream)) {
                continue;
            }
            try {
                int exit = org.agentworkspace.providers.common.Json.parse(Files.readString(root.resolve(p)
                        .resolve("error-401.meta.json"))).path("exitCode").asInt();
                out.add(new RecordedStream(p, "error-401", Files.readAllLines(stream), exit, null, false));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    boolean failure() {
        return scenario.startsWith("error");
    }

    @Override
    public String toString() {
        return provider + "/" + scenario;
    }
}
