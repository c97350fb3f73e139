package org.agentworkspace.testkit.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.agentworkspace.testkit.mockllm.Conversation.ToolSpec;

/** Anthropic Messages API: {@code POST /v1/messages} (SSE when {@code stream:true}) and {@code count_tokens}. */
final class AnthropicApi {

    private AnthropicApi() {
    }

    static Conversation read(JsonNode body, String raw) {
        List<ToolSpec> tools = new ArrayList<>();
        for (JsonNode t : body.path("tools")) {
            tools.add(new ToolSpec(t.path("name").asText(), ToolSpec.Kind.FUNCTION, t.path("input_schema")));
        }
        Optional<String> forced = "tool".equals(body.path("tool_choice").path("type").asText())
                ? Optional.of(body.path("tool_choice").path("name").asText()) : Optional.empty();
        JsonNode schema = body.path("output_format").path("schema");
        if (schema.isMissingNode()) {
            schema = body.path("output_config").path("format").path("schema");
        }
        JsonNode messages = body.path("messages");
        boolean toolTurn = false;
        String toolText = "";
        for (int i = messages.size() - 1; i >= 0; i--) {
            JsonNode m = messages.get(i);
            String role = m.path("role").asText();
            if (!role.equals("user") && !role.equals("assistant")) {
                continue;
            }
            if (role.equals("user") && m.path("content").isArray()) {
                for (JsonNode block : m.path("content")) {
                    if ("tool_result".equals(block.path("type").asText())) {
                        toolTurn = true;
                        toolText = blockText(block.path("content"));
                    }
                }
            }
            break;
        }
        String lastUser = "";
        for (int i = messages.size() - 1; i >= 0 && lastUser.isEmpty(); i--) {
            JsonNode m = messages.get(i);
            if ("user".equals(m.path("role").asText())) {
                lastUser = Wire.stripNoise(blockText(m.path("content")));
            }
        }
        return new Conversation(Conversation.Api.ANTHROPIC_MESSAGES, body.path("model").asText(""),
                body.path("stream").asBoolean(false), lastUser, toolTurn, toolText, tools, forced,
                schema.isMissingNode() ? Optional.empty() : Optional.of(schema), Wire.findCwd(raw), raw.length());
    }

    /** Text of a string content or of the text blocks of a block array (tool_result blocks skipped). */
    static String blockText(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder sb = new StringBuilder();
        for (JsonNode b : content) {
            if ("text".equals(b.path("type").asText())) {
                sb.append(sb.isEmpty() ? "" : "\n").append(b.path("text").asText());
            }
        }
        return sb.toString();
    }

    static int countTokens(JsonNode body, String raw) {
        return Wire.estimateTokens(raw.length());
    }

    static void write(HttpExchange ex, Conversation c, Reply reply, Ctx ctx) throws IOException {
        ex.getResponseHeaders().set("request-id", ctx.id("req_"));
        if (reply instanceof Reply.Failure f) {
            ObjectNode err = ctx.obj().put("type", "error");
            err.putObject("error").put("type", errorType(f.status())).put("message", f.message());
            Wire.sendJson(ex, f.status(), err, ctx.json());
            return;
        }
        String msgId = ctx.id("msg_");
        int in = Wire.estimateTokens(c.requestBytes());
        int out = Wire.estimateTokens(outputChars(reply));
        String stop = reply instanceof Reply.ToolCall ? "tool_use" : "end_turn";
        String toolId = reply instanceof Reply.ToolCall ? ctx.id("toolu_") : "";
        if (!c.stream()) {
            ObjectNode msg = messageShell(ctx, msgId, c.model(), in, out);
            msg.put("stop_reason", stop);
            switch (reply) {
                case Reply.Text t -> msg.withArray("content").addObject().put("type", "text").put("text", t.text());
                case Reply.ToolCall tc -> {
                    if (!tc.preamble().isEmpty()) {
                        msg.withArray("content").addObject().put("type", "text").put("text", tc.preamble());
                    }
                    msg.withArray("content").addObject().put("type", "tool_use").put("id", toolId)
                            .put("name", tc.name()).set("input", ctx.json().readTree(tc.input()));
                }
                case Reply.Failure f -> throw new IllegalStateException();
            }
            Wire.sendJson(ex, 200, msg, ctx.json());
            return;
        }
        try (Wire.Stream s = new Wire.Stream(ex, "text/event-stream", ctx.json(), ctx.deltaDelayMs())) {
            ObjectNode start = ctx.obj().put("type", "message_start");
            ObjectNode shell = messageShell(ctx, msgId, c.model(), in, 1);
            shell.putNull("stop_reason");
            start.set("message", shell);
            s.event("message_start", start);
            int index = 0;
            List<String> texts = switch (reply) {
                case Reply.Text t -> t.deltas();
                case Reply.ToolCall tc -> tc.preamble().isEmpty() ? List.of() : Planner.text(tc.preamble()).deltas();
                case Reply.Failure f -> List.of();
            };
            if (!texts.isEmpty()) {
                ObjectNode cbs = ctx.obj().put("type", "content_block_start").put("index", index);
                cbs.putObject("content_block").put("type", "text").put("text", "");
                s.event("content_block_start", cbs);
                s.event("ping", ctx.obj().put("type", "ping"));
                for (String d : texts) {
                    ObjectNode delta = ctx.obj().put("type", "content_block_delta").put("index", index);
                    delta.putObject("delta").put("type", "text_delta").put("text", d);
                    s.event("content_block_delta", delta);
                    s.pace();
                }
                s.event("content_block_stop", ctx.obj().put("type", "content_block_stop").put("index", index));
                index++;
            }
            if (reply instanceof Reply.ToolCall tc) {
                ObjectNode cbs = ctx.obj().put("type", "content_block_start").put("index", index);
                cbs.putObject("content_block").put("type", "tool_use").put("id", toolId).put("name", tc.name())
                        .putObject("input");
                s.event("content_block_start", cbs);
                for (String part : halves(tc.input())) {
                    ObjectNode delta = ctx.obj().put("type", "content_block_delta").put("index", index);
                    delta.putObject("delta").put("type", "input_json_delta").put("partial_json", part);
                    s.event("content_block_delta", delta);
                    s.pace();
                }
                s.event("content_block_stop", ctx.obj().put("type", "content_block_stop").put("index", index));
            }
            ObjectNode md = ctx.obj().put("type", "message_delta");
            md.putObject("delta").put("stop_reason", stop).putNull("stop_sequence");
            md.putObject("usage").put("input_tokens", in).put("output_tokens", out)
                    .put("cache_creation_input_tokens", 0).put("cache_read_input_tokens", 0);
            s.event("message_delta", md);
            s.event("message_stop", ctx.obj().put("type", "message_stop"));
        }
    }

    private static ObjectNode messageShell(Ctx ctx, String id, String model, int in, int out) {
        ObjectNode msg = ctx.obj().put("id", id).put("type", "message").put("role", "assistant")
                .put("model", model.isEmpty() ? "claude-sonnet-4-5" : model);
        msg.putArray("content");
        msg.putNull("stop_sequence");
        msg.putObject("usage").put("input_tokens", in).put("output_tokens", out)
                .put("cache_creation_input_tokens", 0).put("cache_read_input_tokens", 0);
        return msg;
    }

    static int outputChars(Reply reply) {
        return switch (reply) {
            case Reply.Text t -> t.text().length();
            case Reply.ToolCall tc -> tc.preamble().length() + tc.input().length();
            case Reply.Failure f -> 0;
        };
    }

    /** Splits a string in two, so argument deltas arrive in more than one piece as they do from real APIs. */
    static List<String> halves(String s) {
        if (s.length() < 2) {
            return List.of(s);
        }
        int mid = s.length() / 2;
        if (Character.isHighSurrogate(s.charAt(mid - 1))) {
            mid++;
        }
        return List.of(s.substring(0, mid), s.substring(mid));
    }

    private static String errorType(int status) {
        return switch (status) {
            case 400 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 529 -> "overloaded_error";
            default -> "api_error";
        };
    }
}
