package org.agentworkspace.providers.opencode;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.AgentEvent.Role;
import org.agentworkspace.providers.common.Json;
import org.agentworkspace.providers.common.JsonLineParser;

/**
 * {@code opencode run --format json} events, each {@code {type, timestamp, sessionID, part}}:
 * <pre>
 * any event's sessionID                                  → SessionStarted (once)
 * text {part:{text}}                                     → Message(ASSISTANT) (opencode emits finished parts only)
 * reasoning {part:{text}}                                → Message(REASONING)
 * tool_use {part:{tool, callID, state:{status, input, output | error}}} → ToolCall, and ToolResult once completed/error
 * step_finish {part:{tokens:{input, output, cache:{read, write}}, cost}} → Usage (running total over the steps)
 * error {error:{name, data:{message}}}                   → Error(name); the run fails
 * done {rejected:[...]}                                  → Error(permission_rejected) when tools were refused
 * step_start, done                                       → Unrecognized (no counterpart)
 * </pre>
 * There is no result line: the run succeeded when the process exits with 0 and no error event was seen.
 */
final class OpencodeStreamParser extends JsonLineParser {

    private final Set<String> announced = new HashSet<>();
    private long input;
    private long output;
    private long cacheRead;
    private long cacheWrite;
    private double cost;
    private boolean costSeen;

    OpencodeStreamParser() {
        super("opencode", false);
    }

    @Override
    protected void onObject(JsonNode n, String raw, List<AgentEvent> out) {
        session(Json.text(n, "sessionID"), out);
        String type = Json.text(n, "type");
        JsonNode part = n.path("part");
        if (type == null) {
            out.add(new AgentEvent.Unrecognized(raw, "opencode event without a type"));
            return;
        }
        switch (type) {
            case "text" -> {
                String text = textOr(part, "text");
                out.add(new AgentEvent.Message(Role.ASSISTANT, text));
                lastText(text);
            }
            case "reasoning" -> out.add(new AgentEvent.Message(Role.REASONING, textOr(part, "text")));
            case "tool_use" -> onTool(part, raw, out);
            case "step_finish" -> {
                JsonNode tokens = part.path("tokens");
                input += Json.count(tokens, "input");
                output += Json.count(tokens, "output");
                cacheRead += Json.count(tokens.path("cache"), "read");
                cacheWrite += Json.count(tokens.path("cache"), "write");
                Double c = Json.number(part, "cost");
                if (c != null) {
                    cost += c;
                    costSeen = true;
                }
                out.add(new AgentEvent.Usage(input, output, cacheRead, cacheWrite, costSeen ? cost : null));
            }
            case "error" -> {
                JsonNode error = n.path("error");
                String name = Json.text(error, "name");
                String message = Json.text(error.path("data"), "message");
                if (message == null) {
                    message = Json.text(error, "message");
                }
                if (message == null) {
                    message = error.isMissingNode() ? "opencode reported an error" : Json.write(error);
                }
                out.add(new AgentEvent.Error(name == null || name.isBlank() ? "error" : name, message));
                fail();
            }
            case "done" -> {
                JsonNode rejected = n.path("rejected");
                if (rejected.isArray() && !rejected.isEmpty()) {
                    out.add(new AgentEvent.Error("permission_rejected", Json.write(rejected)));
                } else {
                    out.add(new AgentEvent.Unrecognized(raw, "no unified counterpart: opencode done"));
                }
            }
            case "step_start" -> out.add(new AgentEvent.Unrecognized(raw, "no unified counterpart: opencode "
                    + type));
            default -> out.add(new AgentEvent.Unrecognized(raw, "unknown opencode event type '" + type + "'"));
        }
    }

    private void onTool(JsonNode part, String raw, List<AgentEvent> out) {
        String callId = Json.text(part, "callID");
        String tool = Json.text(part, "tool");
        if (callId == null || tool == null) {
            out.add(new AgentEvent.Unrecognized(raw, "opencode tool_use without callID or tool"));
            return;
        }
        JsonNode state = part.path("state");
        if (announced.add(callId)) {
            out.add(new AgentEvent.ToolCall(callId, tool, Json.inputJson(state.get("input"))));
        }
        String status = Json.text(state, "status");
        if ("completed".equals(status)) {
            out.add(new AgentEvent.ToolResult(callId, Json.outputText(state.get("output")), false));
        } else if ("error".equals(status)) {
            out.add(new AgentEvent.ToolResult(callId, Json.outputText(state.get("error")), true));
        }
    }

    private static String textOr(JsonNode node, String field) {
        String t = Json.text(node, field);
        return t == null ? "" : t;
    }
}
