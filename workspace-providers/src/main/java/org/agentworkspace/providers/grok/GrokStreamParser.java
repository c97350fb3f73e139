package org.agentworkspace.providers.grok;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.AgentEvent.Role;
import org.agentworkspace.providers.common.Json;
import org.agentworkspace.providers.common.JsonLineParser;

/**
 * Grok's headless output: the conversation as OpenAI-style chat messages, one per line, printed at the end.
 * <pre>
 * {role:"user", content}                                   → Message(USER)
 * {role:"assistant", content, tool_calls:[{id, function:{name, arguments}}]} → Message(ASSISTANT), ToolCall each
 * {role:"tool", tool_call_id, content}                     → ToolResult
 * </pre>
 * No session id, no usage. An assistant answer starting with {@value #API_ERROR} is grok's way of reporting an API
 * error (it still exits with 0): Error(api_error) and the run fails.
 */
final class GrokStreamParser extends JsonLineParser {

    static final String API_ERROR = "Sorry, I encountered an error:";

    GrokStreamParser() {
        super("grok", false);
    }

    @Override
    protected void onObject(JsonNode n, String raw, List<AgentEvent> out) {
        String role = Json.text(n, "role");
        if (role == null) {
            out.add(new AgentEvent.Unrecognized(raw, "grok line without a role"));
            return;
        }
        String content = Json.outputText(n.get("content"));
        switch (role) {
            case "user" -> out.add(new AgentEvent.Message(Role.USER, content));
            case "assistant" -> {
                if (!content.isEmpty()) {
                    out.add(new AgentEvent.Message(Role.ASSISTANT, content));
                    lastText(content);
                    if (content.startsWith(API_ERROR)) {
                        out.add(new AgentEvent.Error("api_error", content));
                        fail();
                    }
                }
                for (JsonNode call : n.path("tool_calls")) {
                    JsonNode function = call.path("function");
                    String name = Json.text(function, "name");
                    if (name == null) {
                        out.add(new AgentEvent.Unrecognized(raw, "grok tool call without a name"));
                        continue;
                    }
                    String id = Json.text(call, "id");
                    out.add(new AgentEvent.ToolCall(id == null ? "" : id, name,
                            Json.inputJson(function.get("arguments"))));
                }
            }
            case "tool" -> {
                String id = Json.text(n, "tool_call_id");
                out.add(new AgentEvent.ToolResult(id == null ? "" : id, content, false));
            }
            default -> out.add(new AgentEvent.Unrecognized(raw, "no unified counterpart: grok " + role + " message"));
        }
    }
}
