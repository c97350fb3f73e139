package org.agentworkspace.testkit.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.agentworkspace.testkit.mockllm.Conversation.ToolSpec;

/** OpenAI Chat Completions: {@code POST /v1/chat/completions}, SSE {@code data:} chunks ending in {@code [DONE]}. */
final class OpenAiChatApi {

    private OpenAiChatApi() {
    }

    static Conversation read(JsonNode body, String raw) {
        List<ToolSpec> tools = new ArrayList<>();
        for (JsonNode t : body.path("tools")) {
            JsonNode fn = t.path("function");
            tools.add(new ToolSpec(fn.path("name").asText(), ToolSpec.Kind.FUNCTION, fn.path("parameters")));
        }
        JsonNode choice = body.path("tool_choice");
        Optional<String> forced = choice.isObject() && choice.path("function").has("name")
                ? Optional.of(choice.path("function").path("name").asText()) : Optional.empty();
        JsonNode rf = body.path("response_format");
        Optional<JsonNode> schema = switch (rf.path("type").asText()) {
            case "json_schema" -> Optional.of(rf.path("json_schema").path("schema"));
            case "json_object" -> Optional.of(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("type", "object"));
            default -> Optional.empty();
        };
        JsonNode messages = body.path("messages");
        JsonNode last = messages.isEmpty() ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : messages.get(messages.size() - 1);
        String lastRole = last.path("role").asText();
        boolean toolTurn = lastRole.equals("tool") || lastRole.equals("function");
        String toolText = toolTurn ? partsText(last.path("content")) : "";
        String lastUser = "";
        for (int i = messages.size() - 1; i >= 0 && lastUser.isEmpty(); i--) {
            JsonNode m = messages.get(i);
            if ("user".equals(m.path("role").asText())) {
                lastUser = Wire.stripNoise(partsText(m.path("content")));
            }
        }
        return new Conversation(Conversation.Api.OPENAI_CHAT, body.path("model").asText(""),
                body.path("stream").asBoolean(false), lastUser, toolTurn, toolText, tools, forced, schema,
                Wire.findCwd(raw), raw.length());
    }

    static String partsText(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder sb = new StringBuilder();
        for (JsonNode p : content) {
            if (p.has("text")) {
                sb.append(sb.isEmpty() ? "" : "\n").append(p.path("text").asText());
            }
        }
        return sb.toString();
    }

    static void write(HttpExchange ex, Conversation c, JsonNode body, Reply reply, Ctx ctx) throws IOException {
        ex.getResponseHeaders().set("x-request-id", ctx.id("req_"));
        if (reply instanceof Reply.Failure f) {
            Wire.sendJson(ex, f.status(), error(ctx, f), ctx.json());
            return;
        }
        String id = ctx.id("chatcmpl-");
        String model = c.model().isEmpty() ? "gpt-5.5" : c.model();
        int in = Wire.estimateTokens(c.requestBytes());
        int out = Wire.estimateTokens(AnthropicApi.outputChars(reply));
        String callId = reply instanceof Reply.ToolCall ? ctx.id("call_") : "";
        String finish = reply instanceof Reply.ToolCall ? "tool_calls" : "stop";
        if (!c.stream()) {
            ObjectNode resp = ctx.obj().put("id", id).put("object", "chat.completion")
                    .put("created", ctx.createdEpochSeconds()).put("model", model);
            ObjectNode ch = resp.putArray("choices").addObject().put("index", 0);
            ObjectNode msg = ch.putObject("message").put("role", "assistant");
            switch (reply) {
                case Reply.Text t -> msg.put("content", t.text());
                case Reply.ToolCall tc -> {
                    if (tc.preamble().isEmpty()) {
                        msg.putNull("content");
                    } else {
                        msg.put("content", tc.preamble());
                    }
                    ObjectNode call = msg.putArray("tool_calls").addObject().put("id", callId).put("type", "function");
                    call.putObject("function").put("name", tc.name()).put("arguments", tc.input());
                }
                case Reply.Failure f -> throw new IllegalStateException();
            }
            ch.putNull("logprobs");
            ch.put("finish_reason", finish);
            resp.set("usage", usage(ctx, in, out));
            Wire.sendJson(ex, 200, resp, ctx.json());
            return;
        }
        boolean includeUsage = body.path("stream_options").path("include_usage").asBoolean(false);
        try (Wire.Stream s = new Wire.Stream(ex, "text/event-stream", ctx.json(), ctx.deltaDelayMs())) {
            ObjectNode first = chunk(ctx, id, model);
            first.withArray("choices").addObject().put("index", 0).putNull("finish_reason")
                    .putObject("delta").put("role", "assistant").put("content", "");
            s.data(first);
            List<String> texts = switch (reply) {
                case Reply.Text t -> t.deltas();
                case Reply.ToolCall tc -> tc.preamble().isEmpty() ? List.of() : Planner.text(tc.preamble()).deltas();
                case Reply.Failure f -> List.of();
            };
            for (String d : texts) {
                ObjectNode ck = chunk(ctx, id, model);
                ck.withArray("choices").addObject().put("index", 0).putNull("finish_reason")
                        .putObject("delta").put("content", d);
                s.data(ck);
                s.pace();
            }
            if (reply instanceof Reply.ToolCall tc) {
                boolean firstPart = true;
                for (String part : AnthropicApi.halves(tc.input())) {
                    ObjectNode ck = chunk(ctx, id, model);
                    ObjectNode call = ck.withArray("choices").addObject().put("index", 0).putNull("finish_reason")
                            .putObject("delta").putArray("tool_calls").addObject().put("index", 0);
                    if (firstPart) {
                        call.put("id", callId).put("type", "function");
                        call.putObject("function").put("name", tc.name()).put("arguments", part);
                    } else {
                        call.putObject("function").put("arguments", part);
                    }
                    firstPart = false;
                    s.data(ck);
                    s.pace();
                }
            }
            ObjectNode last = chunk(ctx, id, model);
            last.withArray("choices").addObject().put("index", 0).put("finish_reason", finish).putObject("delta");
            if (!includeUsage) {
                last.set("usage", usage(ctx, in, out));
            }
            s.data(last);
            if (includeUsage) {
                ObjectNode u = chunk(ctx, id, model);
                u.putArray("choices");
                u.set("usage", usage(ctx, in, out));
                s.data(u);
            }
            s.raw("data: [DONE]\n\n");
        }
    }

    private static ObjectNode chunk(Ctx ctx, String id, String model) {
        ObjectNode ck = ctx.obj().put("id", id).put("object", "chat.completion.chunk")
                .put("created", ctx.createdEpochSeconds()).put("model", model);
        ck.putArray("choices");
        return ck;
    }

    static ObjectNode usage(Ctx ctx, int in, int out) {
        ObjectNode u = ctx.obj().put("prompt_tokens", in).put("completion_tokens", out).put("total_tokens", in + out);
        u.putObject("prompt_tokens_details").put("cached_tokens", 0);
        u.putObject("completion_tokens_details").put("reasoning_tokens", 0);
        return u;
    }

    static ObjectNode error(Ctx ctx, Reply.Failure f) {
        ObjectNode err = ctx.obj();
        String type = switch (f.status()) {
            case 401 -> "invalid_request_error";
            case 429 -> "rate_limit_exceeded";
            case 400 -> "invalid_request_error";
            default -> "server_error";
        };
        err.putObject("error").put("message", f.message()).put("type", type).putNull("param")
                .put("code", f.status() == 429 ? "rate_limit_exceeded" : type);
        return err;
    }
}
