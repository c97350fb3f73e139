package org.agentworkspace.testkit.realcli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.agentworkspace.testkit.mockllm.MockLlmServer;
import org.agentworkspace.testkit.mockllm.RecordedRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three scenarios every real CLI must pass against the mock: plain prompt, write-file tool in a temp project,
 * resumed second turn. Subclasses name the provider. Slow (installs the CLI once into the cache); skipped with the
 * reason printed only when node/npm are missing.
 */
@Tag("real-cli")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RealCliScenarios {

    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    private final String provider;
    private final String key;
    private MockLlmServer mock;
    @TempDir
    Path tmp;

    RealCliScenarios(String provider) {
        this.provider = provider;
        this.key = "sk-aw-test-" + provider + "-key";
    }

    @BeforeAll
    void installAndStartMock() {
        Optional<String> missing = RealCli.unavailableReason();
        if (missing.isPresent()) {
            System.out.println("SKIPPED real-cli " + provider + ": " + missing.get());
        }
        Assumptions.assumeTrue(missing.isEmpty(), () -> missing.orElse(""));
        long t0 = System.nanoTime();
        RealCli.ensureInstalled(provider);
        System.out.printf("real-cli %s: ensureInstalled took %d ms%n", provider, (System.nanoTime() - t0) / 1_000_000);
        mock = MockLlmServer.create().start();
    }

    @AfterAll
    void stopMock() {
        if (mock != null) {
            mock.close();
        }
    }

    private RealCli.Headless prepare(String name) {
        return RealCli.prepare(provider, tmp.resolve(name + "-home"), tmp.resolve(name + "-project"), mock.baseUrl(), key);
    }

    private RealCli.Result run(RealCli.Headless h, List<String> argv) {
        RealCli.Result r = h.run(argv, TIMEOUT);
        System.out.printf("real-cli %s: %s took %d ms (exit %d)%n", provider, argv.get(argv.size() - 1),
                r.duration().toMillis(), r.exitCode());
        assertEquals(0, r.exitCode(), () -> provider + " failed: " + r.stderr() + "\n" + r.stdout());
        return r;
    }

    private void assertOnlyTheMockWasUsedWithOurKey(int from) {
        List<RecordedRequest> reqs = mock.requests().subList(from, mock.requests().size());
        assertFalse(reqs.isEmpty(), provider + " reached the mock");
        for (RecordedRequest r : reqs) {
            assertEquals(200, r.status(), () -> provider + " called something the mock does not serve: " + r.method()
                    + " " + r.path());
            assertEquals(Optional.of(key), r.apiKey(), () -> provider + " sent another credential to " + r.path());
        }
    }

    /** All text, content and result strings of the stream, concatenated (joins gemini's word deltas). */
    static String visibleText(String stdout) {
        StringBuilder sb = new StringBuilder();
        for (String line : stdout.lines().toList()) {
            try {
                collect(JSON.readTree(line), sb);
            } catch (java.io.IOException e) {
                sb.append(line);
            }
        }
        return sb.toString();
    }

    private static void collect(com.fasterxml.jackson.databind.JsonNode n, StringBuilder sb) {
        n.fields().forEachRemaining(e -> {
            if (e.getValue().isTextual() && List.of("text", "content", "result").contains(e.getKey())) {
                sb.append(e.getValue().asText());
            } else if (e.getValue().isContainerNode()) {
                collect(e.getValue(), sb);
            }
        });
        if (n.isArray()) {
            n.forEach(c -> collect(c, sb));
        }
    }

    @Test
    void plainPrompt() {
        RealCli.Headless h = prepare("plain");
        int before = mock.requests().size();
        RealCli.Result r = run(h, h.command("Say hello to the mock", false));
        assertTrue(visibleText(r.stdout()).contains("MOCK-REPLY: Say hello to the mock"), r.stdout());
        for (String line : r.stdoutLines()) {
            assertTrue(line.startsWith("{"), () -> "machine-readable output only: " + line);
        }
        assertOnlyTheMockWasUsedWithOurKey(before);
    }

    @Test
    void writeFileTool() throws Exception {
        RealCli.Headless h = prepare("tool");
        int before = mock.requests().size();
        RealCli.Result r = run(h, h.command(
                "Create it [[mock:tool:write_file path=made-by-tool.txt content=written-through-the-tool]]", true));
        Path file = h.project().resolve("made-by-tool.txt");
        assertTrue(Files.exists(file), () -> provider + " did not write the file; stdout: " + r.stdout());
        assertEquals("written-through-the-tool", Files.readString(file).strip());
        assertTrue(mock.requests().subList(before, mock.requests().size()).stream()
                .anyMatch(q -> q.scenario().startsWith("tool:")), "the mock scripted a tool call");
        assertTrue(visibleText(r.stdout()).contains("MOCK-REPLY: tool result"), "the follow-up answer reached the stream");
        assertOnlyTheMockWasUsedWithOurKey(before);
    }

    @Test
    void resumedSecondTurn() {
        RealCli.Headless h = prepare("resume");
        if (!h.spec().resumable()) {
            assertThrows(UnsupportedOperationException.class, () -> h.resumeCommand("x", "y", false));
            return;
        }
        RealCli.Result first = run(h, h.command("Remember the word pineapple", false));
        String session = h.sessionId(first.stdout()).orElseThrow(() -> new AssertionError("no session id"));
        int before = mock.requests().size();
        RealCli.Result second = run(h, h.resumeCommand(session, "What was the word", false));
        assertTrue(visibleText(second.stdout()).contains("MOCK-REPLY: What was the word"), second.stdout());
        assertEquals(Optional.of(session), h.sessionId(second.stdout()), "same session continued");
        List<RecordedRequest> turn2 = mock.requests().subList(before, mock.requests().size());
        assertTrue(turn2.stream().anyMatch(q -> q.body().contains("Remember the word pineapple")),
                "the first turn was replayed to the model");
        assertOnlyTheMockWasUsedWithOurKey(before);
    }
}
