package org.agentworkspace.testkit.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.agentworkspace.testkit.mockllm.Conversation.ToolSpec;

/** OpenAI Responses API: {@code POST /v1/responses}; the SSE event set codex reads. */
final class OpenAiResponsesApi {

    private static final Set<String> TOOL_OUTPUTS = Set.of(
            "function_call_output", "custom_tool_call_output", "local_shell_call_output", "mcp_call_output");

    private OpenAiResponsesApi() {
    }

    static Conversation read(JsonNode body, String raw) {
        List<ToolSpec> tools = new ArrayList<>();
        for (JsonNode t : body.path("tools")) {
            switch (t.path("type").asText()) {
                case "function" -> tools.add(new ToolSpec(t.path("name").asText(), ToolSpec.Kind.FUNCTION,
                        t.path("parameters")));
                case "custom" -> tools.add(new ToolSpec(t.path("name").asText(), ToolSpec.Kind.CUSTOM,
                        com.fasterxml.jackson.databind.node.MissingNode.getInstance()));
                default -> { }
            }
        }
        JsonNode choice = body.path("tool_choice");
        Optional<String> forced = choice.isObject() && choice.has("name")
                ? Optional.of(choice.path("name").asText()) : Optional.empty();
        JsonNode fmt = body.path("text").path("format");
        Optional<JsonNode> schema = "json_schema".equals(fmt.path("type").asText())
                ? Optional.of(fmt.path("schema")) : Optional.empty();
        JsonNode input = body.path("input");
        String lastUser = "";
        boolean toolTurn = false;
        String toolText = "";
        if (input.isTextual()) {
            lastUser = input.asText();
        } else if (input.isArray() && !input.isEmpty()) {
            JsonNode last = input.get(input.size() - 1);
            if (TOOL_OUTPUTS.contains(last.path("type").asText())) {
                toolTurn = true;
                JsonNode out = last.path("output");
                toolText = out.isTextual() ? out.asText() : OpenAiChatApi.partsText(out);
            }
            for (int i = input.size() - 1; i >= 0 && lastUser.isEmpty(); i--) {
                JsonNode item = input.get(i);
                String type = item.path("type").asText("message");
                if (type.equals("message") && "user".equals(item.path("role").asText())) {
                    lastUser = Wire.stripNoise(OpenAiChatApi.partsText(item.path("content")));
                }
            }
        }
        return new Conversation(Conversation.Api.OPENAI_RESPONSES, body.path("model").asText(""),
                body.path("stream").asBoolean(false), lastUser, toolTurn, toolText, tools, forced, schema,
                Wire.findCwd(raw), raw.length());
    }

    static void write(HttpExchange ex, Conversation c, Reply reply, Ctx ctx) throws IOException {
        ex.getResponseHeaders().set("x-request-id", ctx.id("req_"));
        if (reply instanceof Reply.Failure f) {
            Wire.sendJson(ex, f.status(), OpenAiChatApi.error(ctx, f), ctx.json());
            return;
        }
        String respId = ctx.id("resp_");
        String model = c.model().isEmpty() ? "gpt-5.5" : c.model();
        int in = Wire.estimateTokens(c.requestBytes());
        int out = Wire.estimateTokens(AnthropicApi.outputChars(reply));
        List<String> texts = switch (reply) {
            case Reply.Text t -> t.deltas();
            case Reply.ToolCall tc -> tc.preamble().isEmpty() ? List.of() : Planner.text(tc.preamble()).deltas();
            case Reply.Failure f -> List.of();
        };
        String msgId = texts.isEmpty() ? "" : ctx.id("msg_");
        String itemId = reply instanceof Reply.ToolCall tc ? ctx.id(tc.custom() ? "ctc_" : "fc_") : "";
        String callId = reply instanceof Reply.ToolCall ? ctx.id("call_") : "";
        ArrayNode output = ctx.arr();
        if (!texts.isEmpty()) {
            output.add(messageItem(ctx, msgId, String.join("", texts), "completed"));
        }
        if (reply instanceof Reply.ToolCall tc) {
            output.add(toolItem(ctx, tc, itemId, callId, tc.input(), "completed"));
        }
        if (!c.stream()) {
            ObjectNode resp = response(ctx, respId, model, "completed");
            resp.set("output", output);
            resp.set("usage", usage(ctx, in, out));
            Wire.sendJson(ex, 200, resp, ctx.json());
            return;
        }
        int[] seq = {0};
        try (Wire.Stream s = new Wire.Stream(ex, "text/event-stream", ctx.json(), ctx.deltaDelayMs())) {
            ObjectNode created = ev(ctx, "response.created", seq);
            created.set("response", response(ctx, respId, model, "in_progress"));
            s.event("response.created", created);
            ObjectNode progress = ev(ctx, "response.in_progress", seq);
            progress.set("response", response(ctx, respId, model, "in_progress"));
            s.event("response.in_progress", progress);
            int index = 0;
            if (!texts.isEmpty()) {
                String full = String.join("", texts);
                ObjectNode added = ev(ctx, "response.output_item.added", seq).put("output_index", index);
                added.set("item", messageItem(ctx, msgId, null, "in_progress"));
                s.event("response.output_item.added", added);
                ObjectNode part = ev(ctx, "response.content_part.added", seq).put("item_id", msgId)
                        .put("output_index", index).put("content_index", 0);
                part.set("part", textPart(ctx, ""));
                s.event("response.content_part.added", part);
                for (String d : texts) {
                    ObjectNode delta = ev(ctx, "response.output_text.delta", seq).put("item_id", msgId)
                            .put("output_index", index).put("content_index", 0).put("delta", d);
                    delta.putArray("logprobs");
                    s.event("response.output_text.delta", delta);
                    s.pace();
                }
                ObjectNode tdone = ev(ctx, "response.output_text.done", seq).put("item_id", msgId)
                        .put("output_index", index).put("content_index", 0).put("text", full);
                tdone.putArray("logprobs");
                s.event("response.output_text.done", tdone);
                ObjectNode pdone = ev(ctx, "response.content_part.done", seq).put("item_id", msgId)
                        .put("output_index", index).put("content_index", 0);
                pdone.set("part", textPart(ctx, full));
                s.event("response.content_part.done", pdone);
                ObjectNode idone = ev(ctx, "response.output_item.done", seq).put("output_index", index);
                idone.set("item", messageItem(ctx, msgId, full, "completed"));
                s.event("response.output_item.done", idone);
                index++;
            }
            if (reply instanceof Reply.ToolCall tc) {
                String prefix = tc.custom() ? "response.custom_tool_call_input" : "response.function_call_arguments";
                ObjectNode added = ev(ctx, "response.output_item.added", seq).put("output_index", index);
                added.set("item", toolItem(ctx, tc, itemId, callId, "", "in_progress"));
                s.event("response.output_item.added", added);
                for (String part : AnthropicApi.halves(tc.input())) {
                    s.event(prefix + ".delta", ev(ctx, prefix + ".delta", seq).put("item_id", itemId)
                            .put("output_index", index).put("delta", part));
                    s.pace();
                }
                s.event(prefix + ".done", ev(ctx, prefix + ".done", seq).put("item_id", itemId)
                        .put("output_index", index).put(tc.custom() ? "input" : "arguments", tc.input()));
                ObjectNode idone = ev(ctx, "response.output_item.done", seq).put("output_index", index);
                idone.set("item", toolItem(ctx, tc, itemId, callId, tc.input(), "completed"));
                s.event("response.output_item.done", idone);
            }
            ObjectNode done = ev(ctx, "response.completed", seq);
            ObjectNode resp = response(ctx, respId, model, "completed");
            resp.set("output", output);
            resp.set("usage", usage(ctx, in, out));
            done.set("response", resp);
            s.event("response.completed", done);
        }
    }

    private static ObjectNode ev(Ctx ctx, String type, int[] seq) {
        return ctx.obj().put("type", type).put("sequence_number", seq[0]++);
    }

    private static ObjectNode response(Ctx ctx, String id, String model, String status) {
        ObjectNode r = ctx.obj().put("id", id).put("object", "response").put("created_at", ctx.createdEpochSeconds())
                .put("status", status).put("model", model);
        r.putNull("error");
        r.putArray("output");
        r.put("parallel_tool_calls", false);
        if (!"completed".equals(status)) {
            r.putNull("usage");
        }
        return r;
    }

    private static ObjectNode messageItem(Ctx ctx, String id, String text, String status) {
        ObjectNode m = ctx.obj().put("id", id).put("type", "message").put("status", status).put("role", "assistant");
        ArrayNode content = m.putArray("content");
        if (text != null) {
            content.add(textPart(ctx, text));
        }
        return m;
    }

    private static ObjectNode textPart(Ctx ctx, String text) {
        ObjectNode p = ctx.obj().put("type", "output_text").put("text", text);
        p.putArray("annotations");
        return p;
    }

    private static ObjectNode toolItem(Ctx ctx, Reply.ToolCall tc, String id, String callId, String input,
            String status) {
        ObjectNode item = ctx.obj().put("id", id).put("type", tc.custom() ? "custom_tool_call" : "function_call")
                .put("status", status).put("call_id", callId).put("name", tc.name());
        item.put(tc.custom() ? "input" : "arguments", input);
        return item;
    }

    private static ObjectNode usage(Ctx ctx, int in, int out) {
        ObjectNode u = ctx.obj().put("input_tokens", in);
        u.putObject("input_tokens_details").put("cached_tokens", 0);
        u.put("output_tokens", out);
        u.putObject("output_tokens_details").put("reasoning_tokens", 0);
        u.put("total_tokens", in + out);
        return u;
    }
}
