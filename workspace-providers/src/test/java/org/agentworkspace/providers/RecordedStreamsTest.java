package org.agentworkspace.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviders;
import org.agentworkspace.api.provider.StreamParser;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every stream recorded from the real CLIs (and cursor's synthetic one) through its provider's parser.
 *
 * <p>Golden files: {@code src/test/resources/golden/<provider>/<scenario>.events.txt}, one event per line (see
 * {@link EventLines}). After a deliberate parser change or a re-recording, regenerate them with
 * {@code ./mvnw -B -o -pl workspace-providers test -Dtest=RecordedStreamsTest -Daw.golden.update=true}, then review
 * the diff before committing.
 */
class RecordedStreamsTest {

    /** The file-writing tool each CLI used in the tool-write recording. */
    static final Map<String, String> WRITE_TOOL = Map.of("claude", "Write", "codex", "file_change", "gemini",
            "write_file", "qwen", "write_file", "opencode", "write", "grok", "create_file", "cursor", "write");

    @TempDir
    static Path scratch;

    static Stream<RecordedStream> streams() {
        return RecordedStream.all(scratch).stream();
    }

    private static AgentProvider provider(String id) {
        return AgentProviders.load().find(id).orElseThrow();
    }

    private static List<AgentEvent> parse(RecordedStream s) {
        return provider(s.provider()).newParser().parseAll(s.lines(), s.exitCode());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("streams")
    void matchesTheGoldenFile(RecordedStream s) throws IOException {
        String actual = EventLines.format(parse(s));
        Path golden = Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "src", "test",
                "resources", "golden", s.provider(), s.scenario() + ".events.txt");
        if (Boolean.getBoolean("aw.golden.update")) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
            System.out.println("golden file written: " + golden);
            return;
        }
        if (!Files.exists(golden)) {
            fail("missing golden file " + golden + "; generate it with -Daw.golden.update=true and review it");
        }
        assertEquals(Files.readString(golden, StandardCharsets.UTF_8), actual, () -> "events of " + s
                + " differ from " + golden);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("streams")
    void everyLineYieldsAnEventAndParsingIsRepeatable(RecordedStream s) {
        StreamParser parser = provider(s.provider()).newParser();
        for (String line : s.lines()) {
            if (!line.isBlank()) {
                assertFalse(parser.parse(line).isEmpty(), () -> "nothing for a line of " + s + ": " + line);
            }
        }
        parser.finish(s.exitCode());
        assertEquals(parse(s), parse(s), "the same stream gives the same events");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("streams")
    void endsWithOneSuccessfulCompletionCarryingTheSession(RecordedStream s) {
        if (s.failure()) {
            return;
        }
        List<AgentEvent> events = parse(s);
        AgentEvent.Completed done = assertInstanceOf(AgentEvent.Completed.class, events.get(events.size() - 1));
        assertEquals(1, events.stream().filter(AgentEvent.Completed.class::isInstance).count());
        assertTrue(done.success(), () -> s + " completed without success: " + EventLines.format(events));
        assertTrue(events.stream().noneMatch(AgentEvent.Error.class::isInstance), () -> EventLines.format(events));
        assertEquals(s.sessionId(), done.sessionId(), "the recorded session id");
        if (s.sessionId() != null) {
            List<String> announced = events.stream().filter(AgentEvent.SessionStarted.class::isInstance)
                    .map(e -> ((AgentEvent.SessionStarted) e).sessionId()).toList();
            assertEquals(List.of(s.sessionId()), announced, "SessionStarted once, with the recorded id");
            assertInstanceOf(AgentEvent.SessionStarted.class, events.get(0), "the session comes first");
        }
        assertTrue(done.resultText() != null && done.resultText().startsWith("MOCK-REPLY: "), () -> String.valueOf(
                done.resultText()));
        String text = text(events);
        assertTrue(text.contains("MOCK-REPLY: "), text);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("streams")
    void reportsTokenUsageWhereTheCliDoes(RecordedStream s) {
        if (s.failure()) {
            return;
        }
        List<AgentEvent.Usage> usage = parse(s).stream().filter(AgentEvent.Usage.class::isInstance)
                .map(AgentEvent.Usage.class::cast).toList();
        switch (s.provider()) {
            case "grok", "cursor" -> assertTrue(usage.isEmpty(), s.provider() + " reports no usage");
            default -> {
                assertFalse(usage.isEmpty(), () -> s + " has a Usage event");
                AgentEvent.Usage last = usage.get(usage.size() - 1);
                assertTrue(last.inputTokens() > 0 && last.outputTokens() > 0, last::toString);
                if (s.provider().equals("claude")) {
                    assertTrue(last.costUsd() != null && last.costUsd() > 0, "claude reports its cost");
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("streams")
    void anApiErrorEndsInAFailedCompletionWithAnError(RecordedStream s) {
        if (!s.failure()) {
            return;
        }
        List<AgentEvent> events = parse(s);
        AgentEvent.Completed done = assertInstanceOf(AgentEvent.Completed.class, events.get(events.size() - 1));
        assertFalse(done.success(), () -> EventLines.format(events));
        assertTrue(events.stream().anyMatch(e -> e instanceof AgentEvent.Error er && er.message().contains("401")),
                () -> EventLines.format(events));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("streams")
    void theToolScenarioCallsTheWriteToolAndGetsItsResult(RecordedStream s) {
        if (!s.scenario().equals("tool-write")) {
            return;
        }
        List<AgentEvent> events = parse(s);
        List<AgentEvent.ToolCall> writes = events.stream().filter(AgentEvent.ToolCall.class::isInstance)
                .map(AgentEvent.ToolCall.class::cast).filter(c -> c.name().equals(WRITE_TOOL.get(s.provider())))
                .toList();
        assertEquals(1, writes.size(), () -> EventLines.format(events));
        AgentEvent.ToolCall call = writes.get(0);
        assertTrue(call.inputJson().contains("hello.txt"), call.inputJson());
        assertFalse(call.callId().isBlank());
        List<AgentEvent.ToolResult> results = new ArrayList<>();
        events.stream().filter(AgentEvent.ToolResult.class::isInstance).map(AgentEvent.ToolResult.class::cast)
                .filter(r -> r.callId().equals(call.callId())).forEach(results::add);
        assertEquals(1, results.size(), "one result for the call");
        assertFalse(results.get(0).isError());
        assertTrue(events.indexOf(call) < events.indexOf(results.get(0)), "the call comes before its result");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("streams")
    void theResumedStreamContinuesThePlainSession(RecordedStream s) {
        if (!s.scenario().equals("resume")) {
            return;
        }
        RecordedStream plain = RecordedStream.all(scratch.resolve("again")).stream()
                .filter(r -> r.provider().equals(s.provider()) && r.scenario().equals("plain")).findFirst()
                .orElseThrow();
        List<AgentEvent> events = parse(s);
        AgentEvent.Completed done = (AgentEvent.Completed) events.get(events.size() - 1);
        assertEquals(plain.sessionId(), done.sessionId(), "resume keeps the session id of the first turn");
        assertTrue(text(events).contains("MOCK-REPLY: And now a second turn"), text(events));
    }

    private static String text(List<AgentEvent> events) {
        StringBuilder sb = new StringBuilder();
        events.forEach(e -> {
            if (e instanceof AgentEvent.Message m && m.role() == AgentEvent.Role.ASSISTANT) {
                sb.append(m.text()).append('\n');
            }
        });
        return sb.toString();
    }
}
