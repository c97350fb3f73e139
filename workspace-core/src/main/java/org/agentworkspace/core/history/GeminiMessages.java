package org.agentworkspace.core.history;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.Usage;

/**
 * Maps one message of a Gemini-CLI-style chat ({@code {id, timestamp, type, content, thoughts?, toolCalls?,
 * tokens?}}, also qwen's older JSON chats) to history messages.
 *
 * <ul>
 *   <li>{@code user}: text parts (or {@code displayContent}); the CLI's injected {@code <session_context>} message
 *       and messages made only of {@code functionResponse} parts (they repeat the results already stored inside the
 *       model's {@code toolCalls}) are skipped.</li>
 *   <li>{@code gemini}/{@code model}/{@code qwen}/{@code assistant}: each thought → thinking, the content → text,
 *       each tool call → tool_call plus, once it has a result or failed, tool_result ({@code <id>:call:<callId>},
 *       {@code <id>:result:<callId>}).</li>
 *   <li>{@code info}/{@code warning} → system other, {@code error} → system error.</li>
 * </ul>
 */
final class GeminiMessages {
    private GeminiMessages() {
    }

    static void emit(ReadContext ctx, JsonNode msg, long offset) {
        if (msg == null || !msg.isObject()) {
            return;
        }
        String type = Json.str(msg, "type");
        String rid = Json.str(msg, "id");
        String id = rid != null ? rid : "@" + offset;
        Instant ts = Json.instant(msg.get("timestamp"));
        String sid = ctx.sessionId();
        if (type == null) {
            return;
        }
        switch (type) {
            case "user" -> {
                JsonNode display = msg.get("displayContent");
                JsonNode content = display != null && !display.isNull() ? display : msg.get("content");
                if (onlyFunctionResponses(content)) {
                    return;
                }
                String text = Json.contentText(content);
                if (text.isBlank() || text.stripLeading().startsWith("<session_context>")) {
                    return;
                }
                ctx.emit(HistoryMessage.text(id, sid, HistoryMessage.USER, HistoryMessage.TEXT, text, ts, offset));
            }
            case "gemini", "model", "qwen", "assistant" -> assistant(ctx, msg, id, ts, offset);
            case "info", "warning" -> ctx.emit(HistoryMessage.text(id, sid, HistoryMessage.SYSTEM,
                    HistoryMessage.OTHER, Json.contentText(msg.get("content")), ts, offset));
            case "error" -> ctx.emit(HistoryMessage.text(id, sid, HistoryMessage.SYSTEM, HistoryMessage.ERROR,
                    Json.contentText(msg.get("content")), ts, offset));
            default -> {
            }
        }
    }

    private static boolean onlyFunctionResponses(JsonNode content) {
        if (content == null || !content.isArray() || content.isEmpty()) {
            return false;
        }
        for (JsonNode part : content) {
            if (!part.has("functionResponse")) {
                return false;
            }
        }
        return true;
    }

    private static void assistant(ReadContext ctx, JsonNode msg, String id, Instant ts,
            long offset) {
        String sid = ctx.sessionId();
        List<HistoryMessage> out = new ArrayList<>();
        JsonNode thoughts = msg.get("thoughts");
        if (thoughts != null && thoughts.isArray()) {
            int i = 0;
            for (JsonNode t : thoughts) {
                String subject = Json.str(t, "subject");
                String description = Json.str(t, "description");
                String text = subject == null ? (description == null ? Json.contentText(t) : description)
                        : description == null ? subject : subject + "\n" + description;
                out.add(HistoryMessage.text(id + ":thought:" + i++, sid, HistoryMessage.ASSISTANT,
                        HistoryMessage.THINKING, text, Json.instant(t.get("timestamp")) != null
                                ? Json.instant(t.get("timestamp")) : ts, offset));
            }
        }
        String text = Json.contentText(msg.get("content"));
        if (!text.isEmpty()) {
            out.add(HistoryMessage.text(id, sid, HistoryMessage.ASSISTANT, HistoryMessage.TEXT, text, ts, offset));
        }
        JsonNode calls = msg.get("toolCalls");
        if (calls != null && calls.isArray()) {
            int i = 0;
            for (JsonNode c : calls) {
                String callId = Json.str(c, "id");
                String key = callId != null ? callId : String.valueOf(i);
                i++;
                String name = Json.str(c, "name");
                Instant cts = Json.instant(c.get("timestamp")) != null ? Json.instant(c.get("timestamp")) : ts;
                out.add(HistoryMessage.toolCall(id + ":call:" + key, sid, name, callId, Json.json(c.get("args")),
                        ts, offset));
                String status = Json.str(c, "status");
                JsonNode result = c.get("result");
                boolean failed = "error".equals(status) || "cancelled".equals(status);
                boolean hasResult = result != null && !result.isNull() && !(result.isArray() && result.isEmpty());
                if (hasResult || failed) {
                    out.add(HistoryMessage.toolResult(id + ":result:" + key, sid, name, callId,
                            resultText(result, c.get("resultDisplay")), failed, cts, offset));
                }
            }
        }
        Usage usage = null;
        JsonNode tokens = msg.get("tokens");
        if (tokens != null && tokens.isObject()) {
            long cached = Json.lng(tokens, "cached");
            usage = Json.usage(Math.max(0, Json.lng(tokens, "input") - cached), Json.lng(tokens, "output"), cached,
                    0);
        }
        for (int k = 0; k < out.size(); k++) {
            ctx.emit(k == 0 && usage != null ? out.get(k).withUsage(usage) : out.get(k));
        }
    }

    private static String resultText(JsonNode result, JsonNode display) {
        StringBuilder sb = new StringBuilder();
        if (result != null && result.isArray()) {
            for (JsonNode part : result) {
                JsonNode fr = part.get("functionResponse");
                JsonNode response = fr == null ? null : fr.get("response");
                if (response == null) {
                    continue;
                }
                String piece = Json.str(response, "output");
                if (piece == null) {
                    piece = Json.str(response, "error");
                }
                if (piece == null) {
                    piece = response.toString();
                }
                if (!sb.isEmpty()) {
                    sb.append('\n');
                }
                sb.append(piece);
            }
        } else if (result != null && result.isTextual()) {
            sb.append(result.textValue());
        }
        if (sb.isEmpty() && display != null && display.isTextual()) {
            sb.append(display.textValue());
        }
        return sb.toString();
    }
}
