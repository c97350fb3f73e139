package org.agentworkspace.providers.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.AgentEvent.Role;
import org.agentworkspace.providers.common.Json;
import org.agentworkspace.providers.common.JsonLineParser;

/**
 * {@code gemini -o stream-json} events:
 * <pre>
 * init {session_id, model}                                 → SessionStarted
 * message {role:"user", content}                           → Message(USER)
 * message {role:"assistant", content, delta:true}          → TextDelta (joined into one Message(ASSISTANT) before
 *                                                            the next non-delta event and at the end)
 * tool_use {tool_id, tool_name, parameters}                → ToolCall
 * tool_result {tool_id, status, output | error}            → ToolResult (isError when status is "error")
 * error {severity, message}                                → Error
 * result {status, stats:{input_tokens, output_tokens, cached}, error?} → Usage; Error if failed; ends the run
 * </pre>
 */
final class GeminiStreamParser extends JsonLineParser {

    private final StringBuilder pending = new StringBuilder();
    private boolean pendingOpen;

    GeminiStreamParser() {
        super("gemini", true);
    }

    @Override
    protected void onObject(JsonNode n, String raw, List<AgentEvent> out) {
        String type = Json.text(n, "type");
        boolean assistantDelta = "message".equals(type) && "assistant".equals(Json.text(n, "role"))
                && n.path("delta").asBoolean(false);
        if (!assistantDelta) {
            flush(out);
        }
        if (type == null) {
            out.add(new AgentEvent.Unrecognized(raw, "gemini event without a type"));
            return;
        }
        switch (type) {
            case "init" -> {
                session(Json.text(n, "session_id"), out);
                if (out.isEmpty()) {
                    out.add(new AgentEvent.Unrecognized(raw, "gemini init without a new session id"));
                }
            }
            case "message" -> onMessage(n, assistantDelta, raw, out);
            case "tool_use" -> out.add(new AgentEvent.ToolCall(textOr(n, "tool_id"),
                    Json.text(n, "tool_name") == null ? "unknown" : Json.text(n, "tool_name"),
                    Json.inputJson(n.get("parameters"))));
            case "tool_result" -> {
                boolean error = "error".equals(Json.text(n, "status"));
                String output = n.hasNonNull("output") ? Json.outputText(n.get("output"))
                        : n.hasNonNull("error") ? errorText(n.get("error")) : "";
                out.add(new AgentEvent.ToolResult(textOr(n, "tool_id"), output, error));
            }
            case "error" -> {
                String severity = Json.text(n, "severity");
                out.add(new AgentEvent.Error(severity == null ? "error" : severity,
                        n.hasNonNull("message") ? Json.outputText(n.get("message")) : errorText(n.get("error"))));
            }
            case "result" -> onResult(n, out);
            default -> out.add(new AgentEvent.Unrecognized(raw, "unknown gemini event type '" + type + "'"));
        }
    }

    private void onMessage(JsonNode n, boolean assistantDelta, String raw, List<AgentEvent> out) {
        String role = Json.text(n, "role");
        String content = Json.outputText(n.get("content"));
        if (assistantDelta) {
            pending.append(content);
            pendingOpen = true;
            out.add(new AgentEvent.TextDelta(content));
        } else if ("assistant".equals(role)) {
            out.add(new AgentEvent.Message(Role.ASSISTANT, content));
            lastText(content);
        } else if ("user".equals(role)) {
            out.add(new AgentEvent.Message(Role.USER, content));
        } else {
            out.add(new AgentEvent.Unrecognized(raw, "gemini message with role '" + role + "'"));
        }
    }

    private void onResult(JsonNode n, List<AgentEvent> out) {
        JsonNode stats = n.path("stats");
        if (stats.isObject()) {
            out.add(new AgentEvent.Usage(Json.count(stats, "input_tokens"), Json.count(stats, "output_tokens"),
                    Json.count(stats, "cached"), 0, null));
        }
        boolean success = "success".equals(Json.text(n, "status"));
        if (!success) {
            JsonNode error = n.path("error");
            String code = Json.text(error, "type");
            out.add(new AgentEvent.Error(code == null || code.isBlank() ? "error" : code,
                    error.isMissingNode() ? "gemini reported status " + Json.text(n, "status") : errorText(error)));
        }
        terminal(success, null);
    }

    @Override
    protected void beforeFinish(List<AgentEvent> out) {
        flush(out);
    }

    private void flush(List<AgentEvent> out) {
        if (pendingOpen) {
            String text = pending.toString();
            out.add(new AgentEvent.Message(Role.ASSISTANT, text));
            lastText(text);
            pending.setLength(0);
            pendingOpen = false;
        }
    }

    private static String errorText(JsonNode error) {
        if (error == null || error.isNull() || error.isMissingNode()) {
            return "";
        }
        String message = Json.text(error, "message");
        return message != null ? message : Json.outputText(error);
    }

    private static String textOr(JsonNode node, String field) {
        String t = Json.text(node, field);
        return t == null ? "" : t;
    }
}
