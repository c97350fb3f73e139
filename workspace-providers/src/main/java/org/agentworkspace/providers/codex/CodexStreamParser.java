package org.agentworkspace.providers.codex;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.AgentEvent.Role;
import org.agentworkspace.providers.common.Json;
import org.agentworkspace.providers.common.JsonLineParser;

/**
 * {@code codex exec --json} events:
 * <pre>
 * thread.started {thread_id}                          → SessionStarted
 * item.started / item.completed {item:{id, type,...}} → by item type (below)
 * turn.completed {usage}                              → Usage; ends the run successfully
 * turn.failed {error:{message}}                       → Error(turn_failed); ends the run as failed
 * error {message}                                     → Error(error), or Error(retry) for "Reconnecting... n/m"
 * turn.started, item.updated                          → Unrecognized (no counterpart)
 * </pre>
 * Items: {@code agent_message} → Message(ASSISTANT); {@code reasoning} → Message(REASONING); {@code command_execution},
 * {@code file_change}, {@code mcp_tool_call}, {@code web_search} → ToolCall when first seen (started or completed),
 * ToolResult when completed; {@code error} → Error(item_error) (codex also uses these for warnings).
 */
final class CodexStreamParser extends JsonLineParser {

    private final Set<String> announced = new HashSet<>();

    CodexStreamParser() {
        super("codex", true);
    }

    @Override
    protected void onObject(JsonNode n, String raw, List<AgentEvent> out) {
        String type = Json.text(n, "type");
        if (type == null) {
            out.add(new AgentEvent.Unrecognized(raw, "codex event without a type"));
            return;
        }
        switch (type) {
            case "thread.started" -> session(Json.text(n, "thread_id"), out);
            case "item.started" -> onItem(n.path("item"), false, raw, out);
            case "item.completed" -> onItem(n.path("item"), true, raw, out);
            case "turn.completed" -> {
                JsonNode u = n.path("usage");
                out.add(new AgentEvent.Usage(Json.count(u, "input_tokens"), Json.count(u, "output_tokens"),
                        Json.count(u, "cached_input_tokens"), Json.count(u, "cache_write_input_tokens"), null));
                terminal(true, null);
            }
            case "turn.failed" -> {
                String message = Json.text(n.path("error"), "message");
                out.add(new AgentEvent.Error("turn_failed", message == null ? "the turn failed" : message));
                terminal(false, null);
            }
            case "error" -> {
                String message = Json.text(n, "message");
                // "Reconnecting... 2/5 (...)": a retry codex is about to make, not the final failure
                String code = message != null && message.startsWith("Reconnecting...") ? "retry" : "error";
                out.add(new AgentEvent.Error(code, message == null ? Json.write(n) : message));
            }
            case "turn.started", "item.updated" -> out.add(new AgentEvent.Unrecognized(raw,
                    "no unified counterpart: codex " + type));
            default -> out.add(new AgentEvent.Unrecognized(raw, "unknown codex event type '" + type + "'"));
        }
    }

    private void onItem(JsonNode item, boolean completed, String raw, List<AgentEvent> out) {
        String id = Json.text(item, "id");
        String itemType = Json.text(item, "type");
        if (id == null || itemType == null) {
            out.add(new AgentEvent.Unrecognized(raw, "codex item without id or type"));
            return;
        }
        switch (itemType) {
            case "agent_message" -> {
                if (completed) {
                    String text = textOr(item, "text");
                    out.add(new AgentEvent.Message(Role.ASSISTANT, text));
                    lastText(text);
                }
            }
            case "reasoning" -> {
                if (completed) {
                    out.add(new AgentEvent.Message(Role.REASONING, textOr(item, "text")));
                }
            }
            case "command_execution" -> tool(id, itemType, input(item, "command"), completed, out,
                    () -> textOr(item, "aggregated_output"),
                    () -> failed(item) || (item.path("exit_code").isNumber() && item.path("exit_code").asInt() != 0));
            case "file_change" -> tool(id, itemType, input(item, "changes"), completed, out,
                    () -> changes(item), () -> failed(item));
            case "mcp_tool_call" -> {
                String name = Json.text(item, "server") == null ? textOr(item, "tool")
                        : Json.text(item, "server") + "." + textOr(item, "tool");
                tool(id, name.isBlank() ? itemType : name, Json.inputJson(item.get("arguments")), completed, out,
                        () -> item.hasNonNull("error") ? Json.outputText(item.path("error").has("message")
                                ? item.path("error").get("message") : item.get("error"))
                                : Json.outputText(item.get("result")),
                        () -> failed(item) || item.hasNonNull("error"));
            }
            case "web_search" -> tool(id, itemType, input(item, "query"), completed, out, () -> "", () -> false);
            case "error" -> {
                if (completed) {
                    out.add(new AgentEvent.Error("item_error", textOr(item, "message")));
                }
            }
            default -> {
            }
        }
        if (out.isEmpty()) {
            out.add(new AgentEvent.Unrecognized(raw, "no unified counterpart: codex " + itemType + " item ("
                    + (completed ? "completed" : "started") + ")"));
        }
    }

    private void tool(String id, String name, String inputJson, boolean completed, List<AgentEvent> out,
            java.util.function.Supplier<String> output, java.util.function.BooleanSupplier isError) {
        if (announced.add(id)) {
            out.add(new AgentEvent.ToolCall(id, name, inputJson));
        }
        if (completed) {
            out.add(new AgentEvent.ToolResult(id, output.get(), isError.getAsBoolean()));
        }
    }

    private static String input(JsonNode item, String field) {
        ObjectNode o = Json.object();
        if (item.has(field)) {
            o.set(field, item.get(field));
        }
        return Json.write(o);
    }

    private static boolean failed(JsonNode item) {
        String status = Json.text(item, "status");
        return status != null && !status.equals("completed") && !status.equals("in_progress");
    }

    /** "add /path" per change, one per line. */
    private static String changes(JsonNode item) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode c : item.path("changes")) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            sb.append(textOr(c, "kind")).append(' ').append(textOr(c, "path"));
        }
        return sb.toString();
    }

    private static String textOr(JsonNode node, String field) {
        String t = Json.text(node, field);
        return t == null ? "" : t;
    }
}
