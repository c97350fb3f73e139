package org.agentworkspace.providers.cursor;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.providers.common.ClaudeShapedParser;
import org.agentworkspace.providers.common.Json;

/**
 * cursor-agent's stream-json: the Claude shape plus tool events
 * {@code {type:"tool_call", subtype:"started"|"completed", call_id, tool_call:{<kind>ToolCall:{args, result}}}}.
 * The tool name is the kind without the {@code ToolCall} suffix ({@code writeToolCall} → {@code write}); a completed
 * call whose {@code result} has no {@code success} member is an error. Written from the documented format (the CLI is
 * not installable here).
 */
final class CursorStreamParser extends ClaudeShapedParser {

    private final Set<String> announced = new HashSet<>();

    CursorStreamParser() {
        super("cursor", false);
    }

    @Override
    protected void onOther(String type, JsonNode n, String raw, List<AgentEvent> out) {
        if (!"tool_call".equals(type)) {
            super.onOther(type, n, raw, out);
            return;
        }
        String callId = Json.text(n, "call_id");
        JsonNode toolCall = n.path("tool_call");
        Iterator<Map.Entry<String, JsonNode>> fields = toolCall.properties().iterator();
        if (callId == null || !fields.hasNext()) {
            out.add(new AgentEvent.Unrecognized(raw, "cursor tool_call without call_id or tool"));
            return;
        }
        Map.Entry<String, JsonNode> tool = fields.next();
        String name = tool.getKey().endsWith("ToolCall") && tool.getKey().length() > "ToolCall".length()
                ? tool.getKey().substring(0, tool.getKey().length() - "ToolCall".length()) : tool.getKey();
        JsonNode body = tool.getValue();
        String subtype = Json.text(n, "subtype");
        if ("started".equals(subtype) || "completed".equals(subtype)) {
            if (announced.add(callId)) {
                out.add(new AgentEvent.ToolCall(callId, name, Json.inputJson(body.get("args"))));
            }
            if ("completed".equals(subtype)) {
                JsonNode result = body.path("result");
                boolean error = result.isObject() && !result.has("success");
                JsonNode payload = result.has("success") ? result.get("success") : result;
                out.add(new AgentEvent.ToolResult(callId, payload.isMissingNode() ? "" : Json.outputText(payload),
                        error));
            }
            return;
        }
        out.add(new AgentEvent.Unrecognized(raw, "no unified counterpart: cursor tool_call/" + subtype));
    }
}
