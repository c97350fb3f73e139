package org.agentworkspace.testkit.fakecli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.agentworkspace.testkit.realcli.Recordings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped golden recordings are complete and well-formed. */
class RecordingsTest {

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void everyProviderHasEveryScenarioExceptGrokResume() throws Exception {
        for (String p : Recordings.PROVIDERS) {
            for (String s : Recordings.SCENARIOS) {
                boolean expected = !(p.equals("grok") && s.equals("resume"));
                assertEquals(expected, Recordings.exists(p, s), p + "/" + s);
                if (!expected) {
                    continue;
                }
                JsonNode meta = Recordings.meta(p, s);
                assertEquals(p, meta.path("provider").asText());
                assertEquals(0, meta.path("exitCode").asInt());
                assertEquals("/tmp/aw-project", meta.path("cwd").asText());
                assertFalse(meta.path("cliVersion").asText().isEmpty());
                List<String> lines = Recordings.streamLines(p, s);
                assertFalse(lines.isEmpty());
                for (String line : lines) {
                    json.readTree(line);
                }
                assertTrue(Recordings.stream(p, s).contains("MOCK-REPLY"), p + "/" + s + " carries the mock's answer");
                if (!p.equals("grok")) {
                    assertFalse(meta.path("sessionId").asText().isEmpty());
                    assertTrue(Recordings.stream(p, s).contains(meta.path("sessionId").asText()));
                    assertFalse(Recordings.historyFiles(p, s).isEmpty(), p + "/" + s + " has history files");
                }
            }
        }
    }

    @Test
    void resumeKeepsTheSessionAndToolWriteWroteTheFile() {
        for (String p : List.of("claude", "codex", "gemini", "qwen", "opencode")) {
            assertEquals(Recordings.meta(p, "plain").path("sessionId").asText(),
                    Recordings.meta(p, "resume").path("sessionId").asText(), p);
            String text = Recordings.stream(p, "resume");
            if (p.equals("gemini")) {
                // gemini streams the answer as word deltas: join them
                StringBuilder sb = new StringBuilder();
                for (String line : Recordings.streamLines(p, "resume")) {
                    JsonNode n = readTree(line);
                    if (n.path("role").asText().equals("assistant")) {
                        sb.append(n.path("content").asText());
                    }
                }
                text = sb.toString();
            }
            assertTrue(text.contains("MOCK-REPLY: And now a second turn"), p);
        }
        for (String p : Recordings.PROVIDERS) {
            assertEquals("hello-from-mock", Recordings.meta(p, "tool-write").path("writtenContent").asText().strip(), p);
        }
    }

    private JsonNode readTree(String line) {
        try {
            return json.readTree(line);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void historyCopiesIntoAHome(@TempDir Path home) throws Exception {
        List<Path> files = Recordings.copyHome("claude", "resume", home);
        assertEquals(1, files.size());
        Path session = files.get(0);
        assertTrue(session.startsWith(home.resolve(".claude/projects/-tmp-aw-project")));
        String text = Files.readString(session);
        assertTrue(text.contains("Say hello to the recording") && text.contains("And now a second turn"),
                "the resumed history holds both turns");
        assertFalse(Recordings.copyHome("opencode", "plain", home.resolve("oc")).isEmpty());
    }
}
