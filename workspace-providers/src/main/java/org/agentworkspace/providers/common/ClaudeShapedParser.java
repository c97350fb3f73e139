package org.agentworkspace.providers.common;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.AgentEvent.Role;

/**
 * The Claude Code {@code stream-json} format, which qwen and cursor-agent also speak:
 * <pre>
 * {type:"system", subtype:"init", session_id, ...}                 → SessionStarted
 * {type:"assistant", message:{content:[text|tool_use|thinking]}}   → Message(ASSISTANT) / ToolCall / Message(REASONING)
 * {type:"user", message:{content:[tool_result|text]}}              → ToolResult / Message(USER)
 * {type:"stream_event", event:{type:"content_block_delta", delta:{type:"text_delta", text}}} → TextDelta
 * {type:"result", subtype, is_error, result, usage, total_cost_usd} → Usage, Error if failed; ends the run
 * </pre>
 * Every line carrying a {@code session_id} announces it if it is new. Anything else becomes Unrecognized.
 */
public class ClaudeShapedParser extends JsonLineParser {

    private final boolean usageFromMessages;
    private final Map<String, long[]> messageUsage = new LinkedHashMap<>();

    /**
     * @param usageFromMessages sum the {@code usage} of the assistant messages (distinct by message id) instead of
     *     taking the result's {@code usage} (qwen's result reports the whole session's tokens on a resumed run)
     */
    public ClaudeShapedParser(String cli, boolean usageFromMessages) {
        super(cli, true);
        this.usageFromMessages = usageFromMessages;
    }

    @Override
    protected void onObject(JsonNode n, String raw, List<AgentEvent> out) {
        session(Json.text(n, "session_id"), out);
        String type = Json.text(n, "type");
        if (type == null) {
            type = "";
        }
        switch (type) {
            case "system" -> onSystem(n, raw, out);
            case "assistant" -> onAssistant(n, raw, out);
            case "user" -> onUser(n, raw, out);
            case "stream_event" -> onStreamEvent(n, raw, out);
            case "result" -> onResult(n, raw, out);
            default -> onOther(type, n, raw, out);
        }
    }

    /** A type this format does not define; cursor adds {@code tool_call}. */
    protected void onOther(String type, JsonNode n, String raw, List<AgentEvent> out) {
        out.add(new AgentEvent.Unrecognized(raw, "unknown " + cli() + " event type '" + type + "'"));
    }

    private void onSystem(JsonNode n, String raw, List<AgentEvent> out) {
        String subtype = Json.text(n, "subtype");
        if ("init".equals(subtype) && !out.isEmpty()) {
            return;
        }
        out.add(new AgentEvent.Unrecognized(raw, "no unified counterpart: " + cli() + " system/" + subtype));
    }

    private void onAssistant(JsonNode n, String raw, List<AgentEvent> out) {
        JsonNode message = n.path("message");
        JsonNode usage = message.get("usage");
        String messageId = Json.text(message, "id");
        if (usage != null && usage.isObject() && messageId != null) {
            messageUsage.put(messageId, new long[] {Json.count(usage, "input_tokens"),
                    Json.count(usage, "output_tokens"), Json.count(usage, "cache_read_input_tokens"),
                    Json.count(usage, "cache_creation_input_tokens")});
        }
        JsonNode content = message.get("content");
        if (content != null && content.isTextual()) {
            out.add(new AgentEvent.Message(Role.ASSISTANT, content.asText()));
            return;
        }
        if (content == null || !content.isArray()) {
            out.add(new AgentEvent.Unrecognized(raw, cli() + " assistant message without content"));
            return;
        }
        for (JsonNode block : content) {
            String blockType = Json.text(block, "type");
            if ("text".equals(blockType)) {
                out.add(new AgentEvent.Message(Role.ASSISTANT, textOr(block, "text")));
            } else if ("tool_use".equals(blockType) && Json.text(block, "name") != null) {
                out.add(new AgentEvent.ToolCall(textOr(block, "id"), Json.text(block, "name"),
                        Json.inputJson(block.get("input"))));
            } else if ("thinking".equals(blockType)) {
                out.add(new AgentEvent.Message(Role.REASONING, textOr(block, "thinking")));
            } else {
                out.add(new AgentEvent.Unrecognized(raw, "no unified counterpart: " + cli()
                        + " assistant content block '" + blockType + "'"));
            }
        }
    }

    private void onUser(JsonNode n, String raw, List<AgentEvent> out) {
        JsonNode content = n.path("message").get("content");
        if (content != null && content.isTextual()) {
            out.add(new AgentEvent.Message(Role.USER, content.asText()));
            return;
        }
        if (content == null || !content.isArray()) {
            out.add(new AgentEvent.Unrecognized(raw, cli() + " user message without content"));
            return;
        }
        for (JsonNode block : content) {
            String blockType = Json.text(block, "type");
            if ("tool_result".equals(blockType)) {
                out.add(new AgentEvent.ToolResult(textOr(block, "tool_use_id"), Json.outputText(block.get("content")),
                        block.path("is_error").asBoolean(false)));
            } else if ("text".equals(blockType)) {
                out.add(new AgentEvent.Message(Role.USER, textOr(block, "text")));
            } else {
                out.add(new AgentEvent.Unrecognized(raw, "no unified counterpart: " + cli()
                        + " user content block '" + blockType + "'"));
            }
        }
    }

    private void onStreamEvent(JsonNode n, String raw, List<AgentEvent> out) {
        JsonNode event = n.path("event");
        JsonNode delta = event.path("delta");
        if ("content_block_delta".equals(Json.text(event, "type")) && "text_delta".equals(Json.text(delta, "type"))) {
            out.add(new AgentEvent.TextDelta(textOr(delta, "text")));
            return;
        }
        out.add(new AgentEvent.Unrecognized(raw, "no unified counterpart: " + cli() + " stream_event/"
                + Json.text(event, "type")));
    }

    private void onResult(JsonNode n, String raw, List<AgentEvent> out) {
        String subtype = Json.text(n, "subtype");
        boolean success = "success".equals(subtype) && !n.path("is_error").asBoolean(false);
        String result = Json.text(n, "result");
        JsonNode usage = n.get("usage");
        if (usageFromMessages && !messageUsage.isEmpty()) {
            long[] sum = new long[4];
            messageUsage.values().forEach(u -> {
                for (int i = 0; i < 4; i++) {
                    sum[i] += u[i];
                }
            });
            out.add(new AgentEvent.Usage(sum[0], sum[1], sum[2], sum[3], Json.number(n, "total_cost_usd")));
        } else if (usage != null && usage.isObject()) {
            out.add(new AgentEvent.Usage(Json.count(usage, "input_tokens"), Json.count(usage, "output_tokens"),
                    Json.count(usage, "cache_read_input_tokens"), Json.count(usage, "cache_creation_input_tokens"),
                    Json.number(n, "total_cost_usd")));
        }
        if (!success) {
            JsonNode status = n.get("api_error_status");
            String code = status != null && status.isNumber() ? "http_" + status.asInt()
                    : subtype == null || subtype.equals("success") ? "error" : subtype;
            out.add(new AgentEvent.Error(code, errorMessage(n, result, subtype)));
        }
        terminal(success, result);
        if (out.isEmpty()) {
            // a bare successful result: Completed (from finish) carries it
            out.add(new AgentEvent.Unrecognized(raw, "no unified counterpart: " + cli()
                    + " result without usage (its outcome is in Completed)"));
        }
    }

    private static String errorMessage(JsonNode n, String result, String subtype) {
        if (result != null && !result.isBlank()) {
            return result;
        }
        String error = Json.text(n.path("error"), "message");
        if (error != null && !error.isBlank()) {
            return error;
        }
        JsonNode errors = n.get("errors");
        if (errors != null && errors.isArray() && !errors.isEmpty()) {
            StringBuilder sb = new StringBuilder();
            errors.forEach(e -> sb.append(sb.isEmpty() ? "" : "; ").append(e.isTextual() ? e.asText() : Json.write(e)));
            return sb.toString();
        }
        return subtype == null ? "the run failed" : subtype;
    }

    private static String textOr(JsonNode node, String field) {
        String t = Json.text(node, field);
        return t == null ? "" : t;
    }
}
