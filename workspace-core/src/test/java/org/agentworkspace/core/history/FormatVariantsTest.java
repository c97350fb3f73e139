package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.SessionSummary;

/**
 * Record shapes the recordings do not contain (older CLI versions, sub-agents, titles, noise), written by hand after
 * research/providers.md and the CLIs' documented formats. Synthetic: they pin our mapping, not the CLIs' behaviour.
 */
class FormatVariantsTest {
    @TempDir
    Path home;

    private static Path write(Path p, String content) throws Exception {
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
        return p;
    }

    @Test
    void claudeNoiseSidechainsAndTitleRanks() throws Exception {
        String sid = "11111111-2222-4333-8444-555555555555";
        Path dir = home.resolve(".claude/projects/-home-me-app");
        write(dir.resolve(sid + ".jsonl"), String.join("\n",
                "{\"type\":\"summary\",\"summary\":\"Old summary\",\"leafUuid\":\"x\"}",
                "{\"type\":\"user\",\"uuid\":\"m1\",\"isMeta\":true,\"cwd\":\"/home/me/app\",\"timestamp\":"
                        + "\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"<system-reminder>ctx"
                        + "</system-reminder>\"}}",
                "{\"type\":\"user\",\"uuid\":\"c1\",\"cwd\":\"/home/me/app\",\"timestamp\":\"2026-01-01T00:00:01Z\","
                        + "\"message\":{\"role\":\"user\",\"content\":\"<command-name>/model</command-name>\"}}",
                "{\"type\":\"user\",\"uuid\":\"u1\",\"cwd\":\"/home/me/app\",\"timestamp\":\"2026-01-01T00:00:02Z\","
                        + "\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"fix the bug\"},"
                        + "{\"type\":\"image\",\"source\":{}}]}}",
                "{\"type\":\"assistant\",\"uuid\":\"s1\",\"isSidechain\":true,\"timestamp\":\"2026-01-01T00:00:03Z\","
                        + "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"sub-agent\"}]}}",
                "{\"type\":\"assistant\",\"uuid\":\"a1\",\"timestamp\":\"2026-01-01T00:00:04Z\",\"message\":{\"id\":"
                        + "\"msg1\",\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\"},"
                        + "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Read\",\"input\":{\"file_path\":\"a\"}}],"
                        + "\"usage\":{\"input_tokens\":7,\"output_tokens\":3,\"cache_read_input_tokens\":100}}}",
                "{\"type\":\"user\",\"uuid\":\"r1\",\"timestamp\":\"2026-01-01T00:00:05Z\",\"message\":{\"role\":"
                        + "\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"is_error\":true,"
                        + "\"content\":[{\"type\":\"text\",\"text\":\"no such file\"}]}]}}",
                "{\"type\":\"assistant\",\"uuid\":\"e1\",\"isApiErrorMessage\":true,\"timestamp\":"
                        + "\"2026-01-01T00:00:06Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
                        + "\"text\":\"API Error: 529\"}]}}",
                "{\"type\":\"system\",\"subtype\":\"turn_duration\",\"uuid\":\"d1\",\"timestamp\":"
                        + "\"2026-01-01T00:00:07Z\"}",
                "{\"type\":\"user\",\"uuid\":\"k1\",\"isCompactSummary\":true,\"timestamp\":\"2026-01-01T00:00:08Z\","
                        + "\"message\":{\"role\":\"user\",\"content\":\"This session is being continued...\"}}",
                "{\"type\":\"ai-title\",\"aiTitle\":\"AI title\",\"sessionId\":\"" + sid + "\"}",
                "{\"type\":\"custom-title\",\"customTitle\":\"My title\",\"sessionId\":\"" + sid + "\"}",
                "{\"type\":\"ai-title\",\"aiTitle\":\"Later AI title\",\"sessionId\":\"" + sid + "\"}",
                ""));
        write(dir.resolve("agent-abc.jsonl"), "{\"type\":\"user\"}\n");
        write(dir.resolve(sid).resolve("subagents/agent-def.jsonl"), "{\"type\":\"user\"}\n");

        HistoryReader r = HistoryReaders.create().get("claude");
        List<SessionFile> found = r.discover(home);
        assertEquals(1, found.size(), "agent transcripts are not sessions");
        SessionFile f = found.get(0);
        assertEquals(sid, f.sessionId());
        SessionSummary s = r.scan(f);
        assertEquals("/home/me/app", s.projectPath());
        assertEquals("My title", s.title(), "a custom title beats AI titles written later");
        assertEquals("fix the bug", s.firstPrompt(), "command echoes and meta records are not prompts");
        List<HistoryMessage> ms = r.messages(f, 100, 0).messages();
        assertEquals(List.of(
                "system/other: <command-name>/model</command-name>",
                "user/text: fix the bug",
                "user/other: [image]",
                "assistant/thinking: hmm",
                "assistant/tool_call: Read",
                "tool/tool_result: Read",
                "assistant/error: API Error: 529",
                "system/text: This session is being continued..."), Fixtures.describe(ms));
        HistoryMessage result = ms.get(5);
        assertTrue(result.toolError());
        assertEquals("no such file", result.toolOutput());
        assertEquals("t1", result.toolCallId());
        assertEquals("{\"file_path\":\"a\"}", ms.get(4).toolInputJson());
        assertEquals(100, ms.get(3).usage().cacheReadTokens(), "usage on the first block of the API message");
        assertEquals(null, ms.get(4).usage());
        assertEquals("u1:1", ms.get(2).id());
    }

    @Test
    void codexOlderEventsAndIndexTitle() throws Exception {
        String sid = "0199a213-81c0-7800-8aa1-bbab2a035a53";
        write(home.resolve(".codex/sessions/2025/10/02/rollout-2025-10-02T10-00-00-" + sid + ".jsonl"),
                String.join("\n",
                        "{\"timestamp\":\"2025-10-02T10:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"" + sid
                                + "\",\"cwd\":\"/work/api\",\"source\":{\"subagent\":{\"parent\":\"x\"}}}}",
                        "{\"timestamp\":\"2025-10-02T10:00:01Z\",\"type\":\"response_item\",\"payload\":{\"type\":"
                                + "\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":"
                                + "\"<environment_context>...</environment_context>\"}]}}",
                        "{\"timestamp\":\"2025-10-02T10:00:01Z\",\"type\":\"event_msg\",\"payload\":{\"type\":"
                                + "\"user_message\",\"message\":\"run the tests\",\"kind\":\"plain\"}}",
                        "{\"timestamp\":\"2025-10-02T10:00:01Z\",\"type\":\"event_msg\",\"payload\":{\"type\":"
                                + "\"user_message\",\"message\":\"<user_instructions>x</user_instructions>\",\"kind\":"
                                + "\"user_instructions\"}}",
                        "{\"timestamp\":\"2025-10-02T10:00:02Z\",\"type\":\"response_item\",\"payload\":{\"type\":"
                                + "\"reasoning\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"Planning\"}]}}",
                        "{\"timestamp\":\"2025-10-02T10:00:03Z\",\"type\":\"response_item\",\"payload\":{\"type\":"
                                + "\"function_call\",\"name\":\"shell\",\"arguments\":\"{\\\"command\\\":[\\\"npm\\\","
                                + "\\\"test\\\"]}\",\"call_id\":\"call_1\"}}",
                        "{\"timestamp\":\"2025-10-02T10:00:04Z\",\"type\":\"response_item\",\"payload\":{\"type\":"
                                + "\"function_call_output\",\"call_id\":\"call_1\",\"output\":{\"content\":\"1 failed\","
                                + "\"success\":false}}}",
                        "{\"timestamp\":\"2025-10-02T10:00:05Z\",\"type\":\"response_item\",\"payload\":{\"type\":"
                                + "\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":"
                                + "\"One test fails.\"}]}}",
                        "{\"timestamp\":\"2025-10-02T10:00:06Z\",\"type\":\"event_msg\",\"payload\":{\"type\":"
                                + "\"token_count\",\"info\":{\"total_token_usage\":{\"input_tokens\":120,"
                                + "\"cached_input_tokens\":20,\"output_tokens\":30,\"total_tokens\":150}}}}",
                        ""));
        write(home.resolve(".codex/session_index.jsonl"),
                "{\"id\":\"" + sid + "\",\"thread_name\":\"First name\"}\n"
                        + "{\"id\":\"" + sid + "\",\"thread_name\":\"Run the tests\"}\n");
        HistoryReader r = HistoryReaders.create().get("codex");
        SessionFile f = r.discover(home).get(0);
        SessionSummary s = r.scan(f);
        assertEquals("/work/api", s.projectPath());
        assertEquals("Run the tests", s.title());
        assertEquals("run the tests", s.firstPrompt());
        assertTrue(s.subagent());
        assertEquals(100, s.usage().inputTokens());
        assertEquals(20, s.usage().cacheReadTokens());
        List<HistoryMessage> ms = r.messages(f, 100, 0).messages();
        assertEquals(List.of("user/text: run the tests", "assistant/thinking: Planning", "assistant/tool_call: shell",
                "tool/tool_result: shell", "assistant/text: One test fails."), Fixtures.describe(ms));
        assertEquals("{\"command\":[\"npm\",\"test\"]}", ms.get(2).toolInputJson());
        assertTrue(ms.get(3).toolError());
        assertEquals("1 failed", ms.get(3).toolOutput());
    }

    private static final String GEMINI_DOC = """
            {"sessionId":"9a8b7c6d-0000-4000-8000-000000000001","projectHash":"%s",
             "startTime":"2025-06-01T10:00:00.000Z","lastUpdated":"2025-06-01T10:05:00.000Z","summary":"Refactor",
             "messages":[
              {"id":"g1","timestamp":"2025-06-01T10:00:01.000Z","type":"user","content":"refactor utils"},
              {"id":"g2","timestamp":"2025-06-01T10:00:02.000Z","type":"gemini","content":"On it.",
               "thoughts":[{"subject":"Plan","description":"read first","timestamp":"2025-06-01T10:00:02.000Z"}],
               "toolCalls":[{"id":"c1","name":"read_file","args":{"path":"utils.js"},"status":"success",
                 "result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"code"}}}]},
                {"id":"c2","name":"run_shell_command","args":{"command":"rm -rf x"},"status":"cancelled"}],
               "tokens":{"input":100,"output":10,"cached":40,"thoughts":0,"tool":0,"total":110}},
              {"id":"g3","timestamp":"2025-06-01T10:00:03.000Z","type":"info","content":"Request cancelled."},
              {"id":"g4","timestamp":"2025-06-01T10:00:04.000Z","type":"error","content":"quota exceeded"}
             ]}
            """;

    @Test
    void olderGeminiJsonDocumentIsStreamed() throws Exception {
        String project = "/home/me/web";
        String hash = GeminiLayout.sha256(project);
        Path chat = write(home.resolve(".gemini/tmp/" + hash + "/chats/session-2025-06-01T10-00-9a8b7c6d.json"),
                GEMINI_DOC.formatted(hash));
        write(home.resolve(".gemini/projects.json"), "{\"projects\":{\"/elsewhere\":\"x\",\"" + project
                + "\":\"web\"}}");
        HistoryReader r = HistoryReaders.create().get("gemini");
        SessionFile f = r.discover(home).get(0);
        assertEquals("9a8b7c6d-0000-4000-8000-000000000001", f.sessionId());
        SessionSummary s = r.summarize(f);
        assertEquals(project, s.projectPath(), "sha256 folder name mapped through projects.json");
        assertEquals("Refactor", s.title());
        assertEquals("refactor utils", s.firstPrompt());
        assertEquals("2025-06-01T10:05:00Z", s.lastActivity().toString());
        List<HistoryMessage> ms = r.messages(f, 100, 0).messages();
        assertEquals(List.of("user/text: refactor utils", "assistant/thinking: Plan\nread first",
                "assistant/text: On it.", "assistant/tool_call: read_file", "tool/tool_result: read_file",
                "assistant/tool_call: run_shell_command", "tool/tool_result: run_shell_command",
                "system/other: Request cancelled.", "system/error: quota exceeded"), Fixtures.describe(ms));
        assertEquals("code", ms.get(4).toolOutput());
        assertTrue(ms.get(6).toolError(), "a cancelled call is a failed result");
        assertEquals(60, ms.get(1).usage().inputTokens());
        assertTrue(ms.get(0).nativeOffset() > 0, "offset of the message object in the document");
        assertEquals('{', Files.readString(chat).charAt((int) ms.get(0).nativeOffset()));

        // re-reading from a previous offset re-delivers everything after a reset
        Fixtures.Collecting sink = new Fixtures.Collecting();
        ReadResult full = r.readFrom(f, 0, sink);
        assertEquals(Files.size(chat), full.nextOffset());
        ReadResult again = r.readFrom(f, full.nextOffset(), sink);
        assertEquals(1, sink.resets);
        assertEquals(9, sink.list().size());
        assertEquals(Files.size(chat), again.nextOffset());

        // a document cut short (the CLI is rewriting it) is a partial tail: the offset does not move
        String text = Files.readString(chat);
        Files.writeString(chat, text.substring(0, text.indexOf("\"g3\"")));
        Fixtures.Collecting cut = new Fixtures.Collecting();
        ReadResult partial = r.readFrom(f, full.nextOffset(), cut);
        assertTrue(partial.partialTail());
        assertEquals(full.nextOffset(), partial.nextOffset());
        assertEquals(0, partial.corruptLines());
        // garbage instead of a document: one corrupt record, no exception
        Files.writeString(chat, "\u0000\u0001 not json");
        ReadResult junk = r.readFrom(f, 0, HistorySink.discard());
        assertEquals(1, junk.corruptLines());
        assertFalse(junk.partialTail());
    }

    @Test
    void qwenOlderGeminiStyleChatsAreFoundToo() throws Exception {
        write(home.resolve(".qwen/tmp/abc123/.project_root"), "/home/me/q\n");
        write(home.resolve(".qwen/tmp/abc123/chats/session-1.json"), """
                {"sessionId":"q-legacy-1","startTime":"2025-05-01T00:00:00Z","lastUpdated":"2025-05-01T00:01:00Z",
                 "messages":[{"id":"1","type":"user","content":[{"text":"hello qwen"}],"timestamp":"2025-05-01T00:00:00Z"},
                             {"id":"2","type":"qwen","content":[{"text":"hi"}],"timestamp":"2025-05-01T00:00:30Z"}]}
                """);
        write(home.resolve(".qwen/projects/-home-me-q/chats/q-new-1.jsonl"),
                "{\"uuid\":\"a\",\"sessionId\":\"q-new-1\",\"timestamp\":\"2025-07-01T00:00:00Z\",\"type\":\"user\","
                        + "\"cwd\":\"/home/me/q\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"new style\"}]}}\n"
                        + "{\"uuid\":\"t\",\"sessionId\":\"q-new-1\",\"timestamp\":\"2025-07-01T00:00:01Z\",\"type\":"
                        + "\"system\",\"subtype\":\"custom_title\",\"systemPayload\":{\"customTitle\":\"Named\"}}\n"
                        + "{\"uuid\":\"n\",\"sessionId\":\"q-new-1\",\"timestamp\":\"2025-07-01T00:00:02Z\",\"type\":"
                        + "\"user\",\"provenance\":\"notification\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":"
                        + "\"Agent finished\"}]}}\n"
                        + "{\"uuid\":\"m\",\"sessionId\":\"q-new-1\",\"timestamp\":\"2025-07-01T00:00:03Z\",\"type\":"
                        + "\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"text\":\"thinking...\","
                        + "\"thought\":true},{\"text\":\"done\"}]}}\n");
        HistoryReader r = HistoryReaders.create().get("qwen");
        List<SessionFile> found = r.discover(home);
        assertEquals(List.of("q-new-1", "q-legacy-1"), found.stream().map(SessionFile::sessionId).sorted(
                (a, b) -> b.compareTo(a)).toList());
        for (SessionFile f : found) {
            SessionSummary s = r.scan(f);
            assertEquals("/home/me/q", s.projectPath());
            if (f.sessionId().equals("q-legacy-1")) {
                assertEquals("hello qwen", s.firstPrompt());
                assertEquals(List.of("user/text: hello qwen", "assistant/text: hi"),
                        Fixtures.describe(r.messages(f, 10, 0).messages()));
            } else {
                assertEquals("Named", s.title());
                assertEquals(List.of("user/text: new style", "system/other: Agent finished",
                        "assistant/thinking: thinking...", "assistant/text: done"),
                        Fixtures.describe(r.messages(f, 10, 0).messages()));
            }
        }
    }
}
