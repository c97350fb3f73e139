package org.agentworkspace.providers;

import java.util.List;
import java.util.Locale;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.providers.common.Json;

/** The readable one-line-per-event form of the golden files. */
final class EventLines {

    private static final int RAW_KEPT = 100;

    private EventLines() {
    }

    static String format(List<AgentEvent> events) {
        StringBuilder sb = new StringBuilder();
        events.forEach(e -> sb.append(line(e)).append('\n'));
        return sb.toString();
    }

    static String line(AgentEvent e) {
        return switch (e) {
            case AgentEvent.SessionStarted s -> "session_started " + q(s.sessionId());
            case AgentEvent.TextDelta t -> "text_delta " + q(t.text());
            case AgentEvent.Message m -> "message " + m.role().name().toLowerCase(Locale.ROOT) + " " + q(m.text());
            case AgentEvent.ToolCall c -> "tool_call id=" + q(c.callId()) + " name=" + q(c.name()) + " input="
                    + c.inputJson();
            case AgentEvent.ToolResult r -> "tool_result id=" + q(r.callId()) + " error=" + r.isError() + " output="
                    + q(r.output());
            case AgentEvent.Usage u -> "usage input=" + u.inputTokens() + " output=" + u.outputTokens()
                    + " cache_read=" + u.cacheReadTokens() + " cache_write=" + u.cacheWriteTokens() + " cost_usd="
                    + u.costUsd();
            case AgentEvent.Error er -> "error code=" + q(er.code()) + " message=" + q(er.message());
            case AgentEvent.Completed c -> "completed success=" + c.success() + " session=" + q(c.sessionId())
                    + " result=" + q(c.resultText());
            case AgentEvent.Unrecognized u -> "unrecognized reason=" + q(u.reason()) + " raw=" + q(
                    u.rawLine().length() <= RAW_KEPT ? u.rawLine()
                            : u.rawLine().substring(0, RAW_KEPT) + "…(" + u.rawLine().length() + " chars)");
        };
    }

    private static String q(String s) {
        return s == null ? "null" : Json.writeValue(s);
    }
}
