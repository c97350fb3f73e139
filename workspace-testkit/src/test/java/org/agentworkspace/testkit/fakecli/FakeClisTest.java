package org.agentworkspace.testkit.fakecli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.agentworkspace.testkit.realcli.Recordings;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs the fake CLIs as real processes. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FakeClisTest {

    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private final ObjectMapper json = new ObjectMapper();
    @TempDir
    Path tmp;
    private Path bin;

    @BeforeAll
    void install(@TempDir Path dir) {
        bin = FakeClis.install(dir.resolve("bin"));
    }

    record Run(int exit, String out, String err, Duration took) {
        List<String> lines() {
            return out.lines().toList();
        }
    }

    private Run run(String provider, Map<String, String> env, String... args) throws Exception {
        List<String> argv = new ArrayList<>();
        argv.add(FakeClis.binary(bin, provider).toString());
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(tmp.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("AW_FAKE_"));
        pb.environment().putAll(env);
        Path out = tmp.resolve("out-" + System.nanoTime());
        Path err = tmp.resolve("err-" + System.nanoTime());
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        long t0 = System.nanoTime();
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "fake " + provider + " finished");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err),
                Duration.ofNanos(System.nanoTime() - t0));
    }

    /** A plain headless invocation per provider, the way the server would build it. */
    private static String[] plainArgs(String provider, String prompt) {
        return switch (provider) {
            case "claude" -> new String[] {"-p", "--output-format", "stream-json", "--verbose", "--", prompt};
            case "cursor" -> new String[] {"-p", prompt, "--output-format", "stream-json"};
            case "codex" -> new String[] {"exec", "--json", "--skip-git-repo-check", "--", prompt};
            case "gemini", "qwen" -> new String[] {"-o", "stream-json", "--prompt=" + prompt};
            case "opencode" -> new String[] {"run", "--format", "json", "--", prompt};
            default -> new String[] {"--prompt=" + prompt};
        };
    }

    private static String[] resumeArgs(String provider, String id, String prompt) {
        return switch (provider) {
            case "claude" -> new String[] {"-p", "--output-format", "stream-json", "--verbose", "--resume", id, "--", prompt};
            case "cursor" -> new String[] {"--resume=" + id, "-p", prompt, "--output-format", "stream-json"};
            case "codex" -> new String[] {"exec", "resume", "--json", "--skip-git-repo-check", id, "--", prompt};
            case "gemini", "qwen" -> new String[] {"-o", "stream-json", "--resume", id, "--prompt=" + prompt};
            default -> new String[] {"run", "--format", "json", "--session", id, "--", prompt};
        };
    }

    private static String expectedStream(String provider, String scenario) throws IOException {
        if (provider.equals("cursor")) {
            try (var in = FakeClis.class.getResourceAsStream("/org/agentworkspace/testkit/fakecli/cursor/" + scenario + ".jsonl")) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        return Recordings.stream(provider, scenario);
    }

    private static String recordedSession(String provider, String scenario) {
        return provider.equals("cursor") ? "4f0c2b1e-7d3a-4c55-9e21-0a6b8c9d1e2f"
                : Recordings.meta(provider, scenario).path("sessionId").asText();
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "cursor", "codex", "gemini", "qwen", "opencode", "grok"})
    void plainRunReplaysTheRecordingWithAFreshSessionId(String provider) throws Exception {
        Run r = run(provider, Map.of(), plainArgs(provider, "Say hello"));
        assertEquals(0, r.exit(), r.err());
        String recorded = recordedSession(provider, "plain");
        String expected = expectedStream(provider, "plain");
        if (recorded.isEmpty()) {
            assertEquals(expected, r.out(), "grok has no session: byte-for-byte replay");
            return;
        }
        assertFalse(r.out().contains(recorded), "recorded session id replaced");
        String fresh = findFreshId(provider, r.out());
        assertEquals(expected.replace(recorded, fresh), r.out());
        for (String line : r.lines()) {
            json.readTree(line);
        }
    }

    private static String findFreshId(String provider, String out) {
        Matcher m = provider.equals("opencode") ? Pattern.compile("ses_[0-9a-f]{26}").matcher(out) : UUID.matcher(out);
        assertTrue(m.find(), "fresh session id in " + out);
        return m.group();
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "cursor", "codex", "gemini", "qwen", "opencode"})
    void resumeEchoesTheGivenSessionId(String provider) throws Exception {
        String id = provider.equals("opencode") ? "ses_0123456789abcdefABCDEFghij" : "11111111-2222-4333-8444-555555555555";
        Run r = run(provider, Map.of(), resumeArgs(provider, id, "second turn"));
        assertEquals(0, r.exit(), r.err());
        assertEquals(expectedStream(provider, "resume").replace(recordedSession(provider, "resume"), id), r.out());
        assertTrue(r.out().contains(id));
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "cursor", "codex", "gemini", "qwen", "opencode", "grok"})
    void toolMarkerReplaysToolWriteAndWriteFileKnobWritesInCwd(String provider) throws Exception {
        Run r = run(provider, Map.of("AW_FAKE_WRITE_FILE", "sub/out-" + provider + ".txt"),
                plainArgs(provider, "do it"));
        assertEquals(0, r.exit(), r.err());
        assertEquals("written by the fake " + provider + " CLI\n",
                Files.readString(tmp.resolve("sub/out-" + provider + ".txt")));
        String recorded = recordedSession(provider, "tool-write");
        String expected = expectedStream(provider, "tool-write");
        assertEquals(recorded.isEmpty() ? expected : expected.replace(recorded, findFreshId(provider, r.out())),
                r.out());
        Run byMarker = run(provider, Map.of(), plainArgs(provider, "x [[mock:tool:write_file path=a]]"));
        assertEquals(expected.lines().count(), byMarker.lines().size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "codex", "gemini"})
    void realCwdKnobNamesTheWorkingDirectoryInTheToolCalls(String provider) throws Exception {
        Run plain = run(provider, Map.of("AW_FAKE_WRITE_FILE", "hello.txt"), plainArgs(provider, "do it"));
        assertTrue(plain.out().contains("/tmp/aw-project/hello.txt"), plain.out());
        Run r = run(provider, Map.of("AW_FAKE_WRITE_FILE", "hello.txt", "AW_FAKE_REAL_CWD", "1"),
                plainArgs(provider, "do it"));
        assertEquals(0, r.exit(), r.err());
        assertFalse(r.out().contains("/tmp/aw-project"), r.out());
        assertTrue(r.out().contains(tmp.toRealPath() + "/hello.txt"), r.out());
        assertEquals(plain.lines().size(), r.lines().size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "cursor", "codex", "gemini", "qwen", "opencode", "grok"})
    void syntheticEventsAreValidJsonInTheProvidersShape(String provider) throws Exception {
        Run r = run(provider, Map.of("AW_FAKE_EVENTS", "2000"), plainArgs(provider, "bench"));
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.lines();
        long toks = lines.stream().filter(l -> l.contains("tok-")).count();
        assertEquals(2000, toks);
        assertTrue(lines.size() >= 2002, "head + events + tail");
        for (String line : lines) {
            JsonNode n = json.readTree(line);
            assertTrue(n.isObject());
        }
        assertTrue(lines.get(lines.size() - 2).contains("tok-1999"));
        assertTrue(r.took().toMillis() < 20_000, "fast: " + r.took());
    }

    @Test
    void versionExitCodeAndDelayKnobs() throws Exception {
        assertEquals("2.1.330 (Claude Code)", run("claude", Map.of(), "--version").out().strip());
        assertEquals("codex-cli 0.169.0", run("codex", Map.of(), "--version").out().strip());
        assertEquals("2026.01.01-fake", run("cursor", Map.of(), "--version").out().strip());
        Run failed = run("gemini", Map.of("AW_FAKE_EXIT", "3"), plainArgs("gemini", "x"));
        assertEquals(3, failed.exit());
        assertFalse(failed.out().isEmpty(), "still prints the stream");
        Run slow = run("codex", Map.of("AW_FAKE_DELAY_MS", "150"), plainArgs("codex", "x"));
        long lines = slow.lines().size();
        assertTrue(slow.took().toMillis() >= 150 * lines, lines + " lines took " + slow.took());
    }

    @Test
    void echoEnvTellsWhichVariablesAreSetWithoutValues() throws Exception {
        Run r = run("claude", Map.of("AW_FAKE_ECHO_ENV", "ANTHROPIC_API_KEY,OPENAI_API_KEY,bad-name",
                "ANTHROPIC_API_KEY", "sk-secret-value"), plainArgs("claude", "x"));
        JsonNode first = json.readTree(r.lines().get(0));
        assertEquals("aw_fake_env", first.path("type").asText());
        assertEquals("ANTHROPIC_API_KEY", first.path("set").get(0).asText());
        assertEquals("OPENAI_API_KEY", first.path("unset").get(0).asText());
        assertFalse(r.out().contains("sk-secret-value"));
    }

    @Test
    void argsFileRecordsArgvVerbatim() throws Exception {
        Path args = tmp.resolve("args.txt");
        run("opencode", Map.of("AW_FAKE_ARGS_FILE", args.toString()), "run", "--format", "json", "--", "a b", "--x");
        assertEquals(List.of("run", "--format", "json", "--", "a b", "--x"), Files.readAllLines(args));
    }

    @Test
    void grandchildrenSurviveUntilTheTreeIsKilled() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(FakeClis.binary(bin, "claude").toString(), "-p", "--", "x")
                .directory(tmp.toFile()).redirectOutput(tmp.resolve("gc.out").toFile())
                .redirectError(tmp.resolve("gc.err").toFile());
        pb.environment().put("AW_FAKE_GRANDCHILDREN", "3");
        pb.environment().put("AW_FAKE_DELAY_MS", "30000");
        Process p = pb.start();
        // 3 grandchildren + the sleep pacing the first output line, all direct children of the fake
        List<ProcessHandle> sleeps = List.of();
        for (int i = 0; i < 200 && sleeps.size() < 4; i++) {
            Thread.sleep(50);
            sleeps = p.children().filter(h -> h.info().command().orElse("").endsWith("sleep")).toList();
        }
        List<ProcessHandle> tree = p.descendants().toList();
        try {
            assertEquals(4, sleeps.size(), "children: " + tree);
            List<Long> grandchildren = Files.readString(tmp.resolve("gc.err")).lines()
                    .filter(l -> l.startsWith("aw-fake: grandchild pid "))
                    .map(l -> Long.parseLong(l.substring("aw-fake: grandchild pid ".length()).strip())).toList();
            assertEquals(3, grandchildren.size());
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            Thread.sleep(100);
            for (long pid : grandchildren) {
                assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                        "killing only the fake leaves grandchild " + pid + " running (what tree-kill tests need)");
            }
        } finally {
            p.destroyForcibly();
            tree.forEach(ProcessHandle::destroyForcibly);
        }
        for (ProcessHandle h : tree) {
            h.onExit().get(10, TimeUnit.SECONDS);
            assertFalse(h.isAlive());
        }
    }

    @Test
    void installsExecutableScriptsWithTheRealNames() {
        for (String name : List.of("claude", "cursor-agent", "codex", "gemini", "qwen", "opencode", "grok")) {
            assertTrue(Files.isExecutable(bin.resolve(name)), name);
        }
    }
}
