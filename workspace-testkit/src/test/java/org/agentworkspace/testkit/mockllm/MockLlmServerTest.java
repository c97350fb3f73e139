package org.agentworkspace.testkit.mockllm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MockLlmServerTest {

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private MockLlmServer mock;

    @BeforeAll
    void start() {
        mock = MockLlmServer.create().start();
    }

    @AfterAll
    void stop() {
        mock.close();
    }

    @BeforeEach
    void clear() {
        mock.clearRequests();
    }

    // ---------------------------------------------------------------- helpers

    private HttpResponse<String> post(String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(mock.baseUrl() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("content-type", "application/json");
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(mock.baseUrl() + path)).GET();
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** SSE frames as (event name or "", data JSON or raw). */
    private record Frame(String event, String data) {
        JsonNode json(ObjectMapper m) throws IOException {
            return m.readTree(data);
        }
    }

    private static List<Frame> frames(String body) {
        List<Frame> out = new ArrayList<>();
        for (String block : body.replace("\r\n", "\n").split("\n\n")) {
            if (block.isBlank()) {
                continue;
            }
            String event = "";
            StringBuilder data = new StringBuilder();
            for (String line : block.split("\n")) {
                if (line.startsWith("event: ")) {
                    event = line.substring(7);
                } else if (line.startsWith("data: ")) {
                    data.append(line.substring(6));
                }
            }
            out.add(new Frame(event, data.toString()));
        }
        return out;
    }

    private static String anthropicBody(boolean stream, String userText, String extra) {
        return """
                {"model":"claude-sonnet-4-5","max_tokens":100,"stream":%s,%s
                 "messages":[{"role":"user","content":[
                   {"type":"text","text":"<system-reminder>Primary working directory: /work/proj</system-reminder>"},
                   {"type":"text","text":%s}]}]}
                """.formatted(stream, extra, quote(userText));
    }

    private static String quote(String s) {
        return new ObjectMapper().valueToTree(s).toString();
    }

    private static final String WRITE_TOOL_ANTHROPIC = """
            "tools":[{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}},
                     {"name":"Write","input_schema":{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string"}},"required":["file_path","content"]}}],
            """;

    // ---------------------------------------------------------------- Anthropic

    @Test
    void anthropicStreamsPlainTextWithUsageAndRecordsTheKey() throws Exception {
        HttpResponse<String> r = post("/v1/messages?beta=true", anthropicBody(true, "hello there mock world", ""),
                "x-api-key", "sk-ant-test-123", "anthropic-version", "2023-06-01");
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("text/event-stream"));
        List<Frame> f = frames(r.body());
        List<String> events = f.stream().map(Frame::event).toList();
        assertEquals("message_start", events.get(0));
        assertEquals(List.of("content_block_stop", "message_delta", "message_stop"),
                events.subList(events.size() - 3, events.size()));
        StringBuilder text = new StringBuilder();
        for (Frame fr : f) {
            JsonNode d = fr.json(json);
            assertEquals(fr.event(), d.path("type").asText(), "event name and data type agree");
            if (fr.event().equals("content_block_delta")) {
                text.append(d.path("delta").path("text").asText());
            }
        }
        assertEquals("MOCK-REPLY: hello there mock world", text.toString());
        JsonNode start = f.get(0).json(json).path("message");
        assertTrue(start.path("usage").path("input_tokens").asInt() > 0);
        JsonNode delta = f.get(f.size() - 2).json(json);
        assertEquals("end_turn", delta.path("delta").path("stop_reason").asText());
        assertTrue(delta.path("usage").path("output_tokens").asInt() > 0);

        RecordedRequest rec = mock.requests().get(0);
        assertEquals("sk-ant-test-123", rec.apiKey().orElseThrow());
        assertEquals("2023-06-01", rec.header("Anthropic-Version").orElseThrow());
        assertEquals("beta=true", rec.query());
        assertEquals("text", rec.scenario());
    }

    @Test
    void anthropicNonStreamingAnswersAMessage() throws Exception {
        HttpResponse<String> r = post("/v1/messages", anthropicBody(false, "one two three four five six seven eight nine", ""));
        JsonNode m = json.readTree(r.body());
        assertEquals("message", m.path("type").asText());
        assertEquals("MOCK-REPLY: one two three four five six seven eight",
                m.path("content").get(0).path("text").asText(), "echoes the first eight words");
        assertTrue(m.path("usage").path("input_tokens").asInt() > 0);
        assertTrue(m.path("usage").path("output_tokens").asInt() > 0);
    }

    @Test
    void anthropicToolScenarioCallsWriteWithAnAbsolutePathThenAnswersTheResult() throws Exception {
        String prompt = "Create it [[mock:tool:write_file path=notes/a.txt content=\"two words\"]]";
        HttpResponse<String> r = post("/v1/messages", anthropicBody(true, prompt, WRITE_TOOL_ANTHROPIC));
        List<Frame> f = frames(r.body());
        JsonNode toolStart = null;
        StringBuilder args = new StringBuilder();
        for (Frame fr : f) {
            JsonNode d = fr.json(json);
            if (fr.event().equals("content_block_start") && d.path("content_block").path("type").asText().equals("tool_use")) {
                toolStart = d.path("content_block");
            }
            if (d.path("delta").path("type").asText().equals("input_json_delta")) {
                args.append(d.path("delta").path("partial_json").asText());
            }
        }
        assertEquals("Write", toolStart.path("name").asText());
        JsonNode input = json.readTree(args.toString());
        assertEquals("/work/proj/notes/a.txt", input.path("file_path").asText());
        assertEquals("two words", input.path("content").asText());
        assertEquals("tool_use", f.get(f.size() - 2).json(json).path("delta").path("stop_reason").asText());

        String followUp = """
                {"model":"m","max_tokens":10,"stream":false,%s "messages":[
                 {"role":"user","content":%s},
                 {"role":"assistant","content":[{"type":"tool_use","id":"%s","name":"Write","input":{}}]},
                 {"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","content":"File created successfully"}]}]}
                """.formatted(WRITE_TOOL_ANTHROPIC, quote(prompt), toolStart.path("id").asText(),
                toolStart.path("id").asText());
        JsonNode m = json.readTree(post("/v1/messages", followUp).body());
        assertEquals("MOCK-REPLY: tool result: File created successfully", m.path("content").get(0).path("text").asText());
        assertEquals("end_turn", m.path("stop_reason").asText());
    }

    @Test
    void anthropicCountTokensAndModelList() throws Exception {
        JsonNode c = json.readTree(post("/v1/messages/count_tokens", anthropicBody(false, "hi", "")).body());
        assertTrue(c.path("input_tokens").asInt() > 0);
        JsonNode list = json.readTree(get("/v1/models", "anthropic-version", "2023-06-01").body());
        assertEquals("model", list.path("data").get(0).path("type").asText());
        assertTrue(list.path("data").findValuesAsText("id").contains("claude-sonnet-4-5"));
        assertFalse(list.path("has_more").asBoolean(true));
    }

    // ---------------------------------------------------------------- OpenAI Chat

    private static String chatBody(boolean stream, String user, String extra) {
        return """
                {"model":"qwen3-coder-plus","stream":%s,%s
                 "messages":[{"role":"system","content":"I'm currently working in the directory: /srv/p"},
                             {"role":"user","content":%s}]}
                """.formatted(stream, extra, quote(user));
    }

    @Test
    void chatCompletionsStreamsChunksUsageAndDone() throws Exception {
        HttpResponse<String> r = post("/v1/chat/completions",
                chatBody(true, "stream me please", "\"stream_options\":{\"include_usage\":true},"),
                "authorization", "Bearer sk-openai-xyz");
        List<Frame> f = frames(r.body());
        assertEquals("[DONE]", f.get(f.size() - 1).data());
        StringBuilder text = new StringBuilder();
        String finish = null;
        JsonNode usage = null;
        for (Frame fr : f.subList(0, f.size() - 1)) {
            JsonNode d = fr.json(json);
            assertEquals("chat.completion.chunk", d.path("object").asText());
            for (JsonNode ch : d.path("choices")) {
                text.append(ch.path("delta").path("content").asText(""));
                if (!ch.path("finish_reason").isNull()) {
                    finish = ch.path("finish_reason").asText();
                }
            }
            if (d.has("usage")) {
                usage = d.path("usage");
                assertEquals(0, d.path("choices").size(), "usage chunk has no choices");
            }
        }
        assertEquals("MOCK-REPLY: stream me please", text.toString());
        assertEquals("stop", finish);
        assertTrue(usage.path("prompt_tokens").asInt() > 0 && usage.path("completion_tokens").asInt() > 0);
        assertEquals("sk-openai-xyz", mock.requests().get(0).apiKey().orElseThrow());
    }

    @Test
    void chatCompletionsNonStreamingToolCallUsesTheOfferedFileTool() throws Exception {
        String tools = """
                "tools":[{"type":"function","function":{"name":"create_file","parameters":{"type":"object",
                  "properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}}],
                """;
        JsonNode m = json.readTree(post("/v1/chat/completions",
                chatBody(false, "[[mock:tool:write_file path=x.md content=hey]]", tools)).body());
        JsonNode choice = m.path("choices").get(0);
        assertEquals("tool_calls", choice.path("finish_reason").asText());
        JsonNode call = choice.path("message").path("tool_calls").get(0);
        assertEquals("create_file", call.path("function").path("name").asText());
        JsonNode args = json.readTree(call.path("function").path("arguments").asText());
        assertEquals("/srv/p/x.md", args.path("path").asText());
        assertEquals("hey", args.path("content").asText());
        assertTrue(m.path("usage").path("total_tokens").asInt() > 0);

        String followUp = """
                {"model":"m","messages":[{"role":"user","content":"[[mock:tool:write_file path=x.md]]"},
                 {"role":"assistant","content":null,"tool_calls":[%s]},
                 {"role":"tool","tool_call_id":"c1","content":"Created /srv/p/x.md"}]}
                """.formatted(call);
        JsonNode after = json.readTree(post("/v1/chat/completions", followUp).body());
        assertEquals("MOCK-REPLY: tool result: Created /srv/p/x.md",
                after.path("choices").get(0).path("message").path("content").asText());
    }

    @Test
    void chatCompletionsStreamedToolCallArrivesInPieces() throws Exception {
        String tools = """
                "tools":[{"type":"function","function":{"name":"write_file","parameters":{"type":"object",
                  "properties":{"file_path":{"type":"string"},"content":{"type":"string"}}}}}],
                """;
        List<Frame> f = frames(post("/v1/chat/completions",
                chatBody(true, "[[mock:tool:write_file path=y.txt content=z]]", tools)).body());
        StringBuilder args = new StringBuilder();
        int pieces = 0;
        String name = null;
        for (Frame fr : f.subList(0, f.size() - 1)) {
            for (JsonNode ch : fr.json(json).path("choices")) {
                for (JsonNode tc : ch.path("delta").path("tool_calls")) {
                    pieces++;
                    if (tc.path("function").has("name")) {
                        name = tc.path("function").path("name").asText();
                    }
                    args.append(tc.path("function").path("arguments").asText(""));
                }
            }
        }
        assertEquals("write_file", name);
        assertTrue(pieces >= 2);
        assertEquals("/srv/p/y.txt", json.readTree(args.toString()).path("file_path").asText());
        assertTrue(frames(post("/v1/chat/completions", chatBody(true, "no usage option", "")).body()).stream()
                .filter(x -> !x.data().equals("[DONE]")).anyMatch(x -> x.data().contains("\"usage\"")),
                "usage is sent on the final chunk even without stream_options");
    }

    // ---------------------------------------------------------------- OpenAI Responses

    private static String responsesBody(String user, String tools) {
        return """
                {"model":"gpt-5.5","stream":true,"instructions":"be brief",%s
                 "input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]},
                          {"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\\n  <cwd>/home/u/proj</cwd>\\n</environment_context>"}]},
                          {"type":"message","role":"user","content":[{"type":"input_text","text":%s}]}]}
                """.formatted(tools, quote(user));
    }

    private static final String CODEX_TOOLS = """
            "tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"},"login":{"type":"boolean"}},"required":["cmd"]}},
                     {"type":"custom","name":"apply_patch","format":{"type":"grammar","syntax":"lark","definition":"start: x"}}],
            """;

    @Test
    void responsesStreamHasTheEventsCodexReads() throws Exception {
        HttpResponse<String> r = post("/v1/responses", responsesBody("hi codex", ""), "authorization", "Bearer k1");
        List<Frame> f = frames(r.body());
        List<String> events = f.stream().map(Frame::event).toList();
        assertEquals(List.of("response.created", "response.in_progress", "response.output_item.added",
                "response.content_part.added"), events.subList(0, 4));
        assertEquals(List.of("response.output_text.done", "response.content_part.done", "response.output_item.done",
                "response.completed"), events.subList(events.size() - 4, events.size()));
        StringBuilder text = new StringBuilder();
        int seq = 0;
        for (Frame fr : f) {
            JsonNode d = fr.json(json);
            assertEquals(seq++, d.path("sequence_number").asInt());
            if (fr.event().equals("response.output_text.delta")) {
                text.append(d.path("delta").asText());
            }
        }
        assertEquals("MOCK-REPLY: hi codex", text.toString());
        JsonNode done = f.get(f.size() - 1).json(json).path("response");
        assertEquals("completed", done.path("status").asText());
        assertTrue(done.path("usage").path("input_tokens").asInt() > 0);
        assertTrue(done.path("usage").path("output_tokens").asInt() > 0);
        assertEquals("MOCK-REPLY: hi codex", done.path("output").get(0).path("content").get(0).path("text").asText());
    }

    @Test
    void responsesWriteScenarioUsesApplyPatchAndShellScenarioUsesExecCommand() throws Exception {
        List<Frame> f = frames(post("/v1/responses",
                responsesBody("[[mock:tool:write_file path=h.txt content=hello]]", CODEX_TOOLS)).body());
        JsonNode item = f.stream().filter(x -> x.event().equals("response.output_item.done")).reduce((a, b) -> b)
                .orElseThrow().json(json).path("item");
        assertEquals("custom_tool_call", item.path("type").asText());
        assertEquals("apply_patch", item.path("name").asText());
        assertEquals("*** Begin Patch\n*** Add File: h.txt\n+hello\n*** End Patch\n", item.path("input").asText());
        assertTrue(f.stream().anyMatch(x -> x.event().equals("response.custom_tool_call_input.delta")));

        List<Frame> g = frames(post("/v1/responses",
                responsesBody("[[mock:tool:shell command=\"echo hi > f\"]]", CODEX_TOOLS)).body());
        JsonNode call = g.stream().filter(x -> x.event().equals("response.output_item.done")).reduce((a, b) -> b)
                .orElseThrow().json(json).path("item");
        assertEquals("function_call", call.path("type").asText());
        assertEquals("exec_command", call.path("name").asText());
        assertEquals("echo hi > f", json.readTree(call.path("arguments").asText()).path("cmd").asText());
        assertFalse(call.path("call_id").asText().isEmpty());

        String followUp = """
                {"model":"gpt-5.5","stream":false,"input":[
                  {"type":"message","role":"user","content":[{"type":"input_text","text":"[[mock:tool:shell]]"}]},
                  {"type":"function_call","call_id":"c","name":"exec_command","arguments":"{}"},
                  {"type":"function_call_output","call_id":"c","output":"Exit code: 0"}]}
                """;
        JsonNode resp = json.readTree(post("/v1/responses", followUp).body());
        assertEquals("response", resp.path("object").asText());
        assertEquals("MOCK-REPLY: tool result: Exit code: 0",
                resp.path("output").get(0).path("content").get(0).path("text").asText());
    }

    // ---------------------------------------------------------------- Gemini

    private static String geminiBody(String user, String extra) {
        return """
                {%s "contents":[{"role":"user","parts":[{"text":"I'm currently working in the directory: /g/proj"}]},
                  {"role":"model","parts":[{"text":"Got it."}]},
                  {"role":"user","parts":[{"text":%s}]}]}
                """.formatted(extra, quote(user));
    }

    @Test
    void geminiSseStreamGenerateContent() throws Exception {
        HttpResponse<String> r = post("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                geminiBody("hello gemini", ""), "x-goog-api-key", "g-key");
        List<Frame> f = frames(r.body());
        StringBuilder text = new StringBuilder();
        for (Frame fr : f) {
            for (JsonNode p : fr.json(json).path("candidates").get(0).path("content").path("parts")) {
                text.append(p.path("text").asText(""));
            }
        }
        assertEquals("MOCK-REPLY: hello gemini", text.toString());
        JsonNode last = f.get(f.size() - 1).json(json);
        assertEquals("STOP", last.path("candidates").get(0).path("finishReason").asText());
        assertTrue(last.path("usageMetadata").path("candidatesTokenCount").asInt() > 0);
        assertEquals("gemini-2.5-flash", last.path("modelVersion").asText());
        assertEquals("g-key", mock.requests().get(0).apiKey().orElseThrow());
    }

    @Test
    void geminiJsonArrayStreamAndGenerateContentAndFunctionCall() throws Exception {
        JsonNode arr = json.readTree(post("/v1beta/models/gemini-2.5-pro:streamGenerateContent",
                geminiBody("array please", "")).body());
        assertTrue(arr.isArray() && arr.size() >= 2);
        String tools = """
                "tools":[{"functionDeclarations":[{"name":"write_file","parametersJsonSchema":{"type":"object",
                  "properties":{"file_path":{"type":"string"},"content":{"type":"string"}},"required":["file_path","content"]}}]}],
                """;
        JsonNode one = json.readTree(post("/v1beta/models/gemini-2.5-flash:generateContent",
                geminiBody("[[mock:tool:write_file path=w.txt content=c]]", tools)).body());
        JsonNode parts = one.path("candidates").get(0).path("content").path("parts");
        JsonNode call = parts.get(parts.size() - 1).path("functionCall");
        assertEquals("write_file", call.path("name").asText());
        assertEquals("/g/proj/w.txt", call.path("args").path("file_path").asText());
        assertTrue(one.path("usageMetadata").path("totalTokenCount").asInt() > 0);

        String followUp = """
                {"contents":[{"role":"user","parts":[{"text":"[[mock:tool:write_file path=w.txt]]"}]},
                  {"role":"model","parts":[{"functionCall":{"name":"write_file","args":{}}}]},
                  {"role":"user","parts":[{"functionResponse":{"name":"write_file","response":{"output":"Successfully created"}}}]}]}
                """;
        JsonNode after = json.readTree(post("/v1beta/models/gemini-2.5-flash:generateContent", followUp).body());
        assertEquals("MOCK-REPLY: tool result: Successfully created",
                after.path("candidates").get(0).path("content").path("parts").get(0).path("text").asText());
    }

    @Test
    void geminiStructuredSideRequestsGetSchemaConformingJson() throws Exception {
        String schema = """
                "generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object",
                  "properties":{"reasoning":{"type":"string"},"next_speaker":{"type":"string","enum":["model","user"]},
                  "complexity_score":{"type":"integer","minimum":1,"maximum":100}},
                  "required":["reasoning","next_speaker","complexity_score"]}},
                """;
        JsonNode r = json.readTree(post("/v1beta/models/gemini-2.5-flash-lite:generateContent",
                geminiBody("[[mock:tool:write_file]] route me", schema)).body());
        JsonNode answer = json.readTree(r.path("candidates").get(0).path("content").path("parts").get(0)
                .path("text").asText());
        assertEquals("user", answer.path("next_speaker").asText());
        assertTrue(answer.path("complexity_score").asInt() >= 1);
        assertTrue(answer.path("reasoning").isTextual());
    }

    @Test
    void geminiModelListCountTokensAndEmbeddings() throws Exception {
        JsonNode list = json.readTree(get("/v1beta/models").body());
        assertTrue(list.path("models").findValuesAsText("name").contains("models/gemini-2.5-flash"));
        JsonNode one = json.readTree(get("/v1beta/models/gemini-2.5-pro").body());
        assertEquals("models/gemini-2.5-pro", one.path("name").asText());
        assertTrue(json.readTree(post("/v1beta/models/gemini-2.5-flash:countTokens", geminiBody("x", "")).body())
                .path("totalTokens").asInt() > 0);
        assertEquals(8, json.readTree(post("/v1beta/models/text-embedding-004:embedContent", "{}").body())
                .path("embedding").path("values").size());
    }

    // ---------------------------------------------------------------- scenarios common to every API

    @Test
    void errorMarkersAnswerEachApisErrorShape() throws Exception {
        HttpResponse<String> a = post("/v1/messages", anthropicBody(true, "[[mock:error:429]]", ""));
        assertEquals(429, a.statusCode());
        assertEquals("rate_limit_error", json.readTree(a.body()).path("error").path("type").asText());
        HttpResponse<String> o = post("/v1/chat/completions", chatBody(true, "x [[mock:error:500]]", ""));
        assertEquals(500, o.statusCode());
        assertEquals("server_error", json.readTree(o.body()).path("error").path("type").asText());
        HttpResponse<String> rs = post("/v1/responses", responsesBody("[[mock:error:429]]", ""));
        assertEquals(429, rs.statusCode());
        assertTrue(json.readTree(rs.body()).path("error").has("message"));
        HttpResponse<String> g = post("/v1beta/models/m:streamGenerateContent?alt=sse", geminiBody("[[mock:error:429]]", ""));
        assertEquals(429, g.statusCode());
        assertEquals("RESOURCE_EXHAUSTED", json.readTree(g.body()).path("error").path("status").asText());
        assertEquals(List.of("error:429", "error:500", "error:429", "error:429"),
                mock.requests().stream().map(RecordedRequest::scenario).toList());
    }

    @Test
    void slowMarkerDelaysTheAnswer() throws Exception {
        long t0 = System.nanoTime();
        HttpResponse<String> r = post("/v1/chat/completions", chatBody(false, "[[mock:slow:400]] wait", ""));
        long ms = Duration.ofNanos(System.nanoTime() - t0).toMillis();
        assertEquals(200, r.statusCode());
        assertTrue(ms >= 400, "took " + ms + " ms");
        assertEquals("MOCK-REPLY: wait",
                json.readTree(r.body()).path("choices").get(0).path("message").path("content").asText());
    }

    @Test
    void longMarkerEmitsNDeltas() throws Exception {
        List<Frame> f = frames(post("/v1/messages", anthropicBody(true, "[[mock:long:250]]", "")).body());
        long deltas = f.stream().filter(x -> x.event().equals("content_block_delta")).count();
        assertEquals(250, deltas);
        List<Frame> g = frames(post("/v1beta/models/m:streamGenerateContent?alt=sse", geminiBody("[[mock:long:40]]", "")).body());
        assertEquals(40, g.size());
    }

    @Test
    void replyMarkerChoosesTheText() throws Exception {
        JsonNode m = json.readTree(post("/v1/messages",
                anthropicBody(false, "[[mock:reply text=\"exactly this\"]]", "")).body());
        assertEquals("exactly this", m.path("content").get(0).path("text").asText());
    }

    @Test
    void toolMarkerWithoutToolsFallsBackToText() throws Exception {
        JsonNode m = json.readTree(post("/v1/chat/completions",
                chatBody(false, "title for [[mock:tool:write_file path=a]] this", "")).body());
        assertEquals("MOCK-REPLY: title for this",
                m.path("choices").get(0).path("message").path("content").asText());
    }

    @Test
    void openAiModelListUnknownRouteAndHealth() throws Exception {
        JsonNode list = json.readTree(get("/v1/models").body());
        assertEquals("list", list.path("object").asText());
        assertTrue(list.path("data").findValuesAsText("id").contains("gpt-5.5"));
        assertEquals("gpt-5.5", json.readTree(get("/v1/models/gpt-5.5").body()).path("id").asText());
        HttpResponse<String> nf = post("/v2/whatever", "{}");
        assertEquals(404, nf.statusCode());
        assertEquals("ok", json.readTree(get("/__mock/health").body()).path("status").asText());
        assertEquals(404, mock.requests("/v2/whatever").get(0).status());
    }

    @Test
    void bindsLoopbackOnTheGivenPortAndCanRestartElsewhere() throws Exception {
        int port;
        try (MockLlmServer other = MockLlmServer.create().start()) {
            port = other.port();
            assertTrue(other.baseUrl().startsWith("http://127.0.0.1:"));
        }
        try (MockLlmServer again = MockLlmServer.builder().port(port).build().start()) {
            assertEquals(port, again.port());
            assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(again.baseUrl() + "/__mock/health")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
        }
    }
}
