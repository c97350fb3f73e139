package org.agentworkspace.core.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.provider.AgentEvent;

/**
 * The stored (and streamed) JSON form of one {@link AgentEvent}: {@code {"kind": …, "data": {…}}}. Kinds:
 * {@code session} {sessionId}; {@code text} {role, text}; {@code text-delta} {text}; {@code thinking} {text};
 * {@code tool-use} {callId, toolName, input}; {@code tool-result} {callId, output, isError}; {@code usage} {input,
 * output, cacheRead, cacheWrite, cost}; {@code error} {code, message}; {@code completed} {success, sessionId,
 * resultText}; {@code unrecognized} {line, reason}. Tool input is embedded as JSON when it parses, else as text.
 */
public final class EventJson {
    private final ObjectMapper mapper;

    public EventJson(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    public ObjectNode toJson(AgentEvent event) {
        ObjectNode root = mapper.createObjectNode();
        ObjectNode data = mapper.createObjectNode();
        String kind = switch (event) {
            case AgentEvent.SessionStarted s -> {
                data.put("sessionId", s.sessionId());
                yield "session";
            }
            case AgentEvent.TextDelta d -> {
                data.put("text", d.text());
                yield "text-delta";
            }
            case AgentEvent.Message m -> {
                data.put("text", m.text());
                if (m.role() == AgentEvent.Role.REASONING) {
                    yield "thinking";
                }
                data.put("role", m.role().name().toLowerCase(java.util.Locale.ROOT));
                yield "text";
            }
            case AgentEvent.ToolCall c -> {
                data.put("callId", c.callId());
                data.put("toolName", c.name());
                data.set("input", parseOrText(c.inputJson()));
                yield "tool-use";
            }
            case AgentEvent.ToolResult r -> {
                data.put("callId", r.callId());
                data.put("output", r.output());
                data.put("isError", r.isError());
                yield "tool-result";
            }
            case AgentEvent.Usage u -> {
                data.put("input", u.inputTokens());
                data.put("output", u.outputTokens());
                data.put("cacheRead", u.cacheReadTokens());
                data.put("cacheWrite", u.cacheWriteTokens());
                if (u.costUsd() == null) {
                    data.putNull("cost");
                } else {
                    data.put("cost", u.costUsd());
                }
                yield "usage";
            }
            case AgentEvent.Error e -> {
                data.put("code", e.code());
                data.put("message", e.message());
                yield "error";
            }
            case AgentEvent.Completed c -> {
                data.put("success", c.success());
                data.put("sessionId", c.sessionId());
                data.put("resultText", c.resultText());
                yield "completed";
            }
            case AgentEvent.Unrecognized u -> {
                data.put("line", u.rawLine());
                data.put("reason", u.reason());
                yield "unrecognized";
            }
        };
        root.put("kind", kind);
        root.set("data", data);
        return root;
    }

    private JsonNode parseOrText(String text) {
        try {
            return mapper.readTree(text);
        } catch (java.io.IOException e) {
            return mapper.getNodeFactory().textNode(text);
        }
    }
}
