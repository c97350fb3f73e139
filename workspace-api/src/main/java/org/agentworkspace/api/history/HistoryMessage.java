package org.agentworkspace.api.history;

import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * One message of a session's history, in the same shape for every provider.
 *
 * <ul>
 *   <li>{@code id}: stable within the session (the CLI's own id where it has one, else derived from the native
 *       position). Readers may deliver the same id again with updated content (a tool call that gained its result, a
 *       rewritten chat file); consumers replace the earlier message in place.</li>
 *   <li>{@code role}: {@value #USER} | {@value #ASSISTANT} | {@value #TOOL} | {@value #SYSTEM}.</li>
 *   <li>{@code kind}: {@value #TEXT} | {@value #TOOL_CALL} | {@value #TOOL_RESULT} | {@value #THINKING} |
 *       {@value #ERROR} | {@value #OTHER}. Tool calls have role assistant, tool results role tool.</li>
 *   <li>{@code text}: never null; the readable text ({@code ""} for tool calls and results, whose payload is in the
 *       tool fields).</li>
 *   <li>{@code toolName}, {@code toolCallId}: set for tool calls and tool results (the id links the two).</li>
 *   <li>{@code toolInputJson}: the call's input as a JSON text (a JSON string literal when the CLI recorded free-form
 *       input); null except for tool calls.</li>
 *   <li>{@code toolOutput}: the result's text; null except for tool results. {@code toolError}: the CLI marked the
 *       result as failed.</li>
 *   <li>{@code timestamp}: when the CLI recorded it; null when the provider records none (cursor).</li>
 *   <li>{@code usage}: tokens of the model response this message starts (set on the first message of each
 *       response, null elsewhere and where the provider records no per-response usage).</li>
 *   <li>{@code nativeOffset}: for debugging, where the message came from: the byte offset of the native line (JSONL),
 *       of the message object (JSON documents), or the SQLite rowid (opencode part, cursor blob); -1 if unknown.</li>
 * </ul>
 */
public record HistoryMessage(
        String id,
        String sessionId,
        String role,
        String kind,
        String text,
        String toolName,
        String toolCallId,
        String toolInputJson,
        String toolOutput,
        boolean toolError,
        Instant timestamp,
        Usage usage,
        long nativeOffset) {

    public static final String USER = "user";
    public static final String ASSISTANT = "assistant";
    public static final String TOOL = "tool";
    public static final String SYSTEM = "system";

    public static final String TEXT = "text";
    public static final String TOOL_CALL = "tool_call";
    public static final String TOOL_RESULT = "tool_result";
    public static final String THINKING = "thinking";
    public static final String ERROR = "error";
    public static final String OTHER = "other";

    public static final Set<String> ROLES = Set.of(USER, ASSISTANT, TOOL, SYSTEM);
    public static final Set<String> KINDS = Set.of(TEXT, TOOL_CALL, TOOL_RESULT, THINKING, ERROR, OTHER);

    public HistoryMessage {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(text, "text");
        if (!ROLES.contains(role)) {
            throw new IllegalArgumentException("unknown role: " + role);
        }
        if (!KINDS.contains(kind)) {
            throw new IllegalArgumentException("unknown kind: " + kind);
        }
    }

    /** A plain text message. */
    public static HistoryMessage text(String id, String sessionId, String role, String kind, String text,
            Instant timestamp, long nativeOffset) {
        return new HistoryMessage(id, sessionId, role, kind, text, null, null, null, null, false, timestamp, null,
                nativeOffset);
    }

    /** A tool call by the assistant. */
    public static HistoryMessage toolCall(String id, String sessionId, String toolName, String toolCallId,
            String toolInputJson, Instant timestamp, long nativeOffset) {
        return new HistoryMessage(id, sessionId, ASSISTANT, TOOL_CALL, "", toolName, toolCallId, toolInputJson, null,
                false, timestamp, null, nativeOffset);
    }

    /** The result of a tool call. */
    public static HistoryMessage toolResult(String id, String sessionId, String toolName, String toolCallId,
            String output, boolean error, Instant timestamp, long nativeOffset) {
        return new HistoryMessage(id, sessionId, TOOL, TOOL_RESULT, "", toolName, toolCallId, null,
                output == null ? "" : output, error, timestamp, null, nativeOffset);
    }

    /** This message with {@code usage} attached. */
    public HistoryMessage withUsage(Usage newUsage) {
        return new HistoryMessage(id, sessionId, role, kind, text, toolName, toolCallId, toolInputJson, toolOutput,
                toolError, timestamp, newUsage, nativeOffset);
    }
}
