package org.agentworkspace.api.provider;

import java.util.Objects;

/**
 * What a provider CLI reported, in one closed family shared by every provider. A {@link StreamParser} turns each line
 * of the CLI's native stream into zero or more of these; nothing is dropped: a line with no counterpart here becomes
 * {@link Unrecognized} with its raw text. JSON payloads travel as JSON text (this module has no JSON library).
 *
 * <p>Order within a run: {@link SessionStarted} as soon as the CLI names its session (never for CLIs without sessions),
 * then any mix of the others, and exactly one {@link Completed}, always last, produced by
 * {@link StreamParser#finish(int)}.
 */
public sealed interface AgentEvent {

    /** The CLI's own session id, the one a later run passes as {@link RunSpec#resumeSessionId()}. */
    record SessionStarted(String sessionId) implements AgentEvent {
        public SessionStarted {
            requireText(sessionId, "sessionId");
        }
    }

    /**
     * A piece of assistant text while it is being generated (only CLIs that stream tokens). A preview: the complete
     * text follows as a {@link Message}, so a consumer that only keeps messages loses nothing.
     */
    record TextDelta(String text) implements AgentEvent {
        public TextDelta {
            Objects.requireNonNull(text, "text");
        }
    }

    /** A complete message. */
    record Message(Role role, String text) implements AgentEvent {
        public Message {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(text, "text");
        }
    }

    /** Who a {@link Message} is from. */
    enum Role {
        /** The user's prompt, when the CLI echoes it. */
        USER,
        /** The model's answer. */
        ASSISTANT,
        /** The model's visible reasoning ("thinking"), when the CLI reports it. */
        REASONING
    }

    /**
     * The model asked for a tool.
     *
     * @param callId the CLI's id for the call; a {@link ToolResult} with the same id answers it
     * @param name the CLI's native tool name ({@code Write}, {@code write_file}, {@code file_change}, ...)
     * @param inputJson the tool's input as JSON text ({@code {}} when the CLI reports none)
     */
    record ToolCall(String callId, String name, String inputJson) implements AgentEvent {
        public ToolCall {
            Objects.requireNonNull(callId, "callId");
            requireText(name, "name");
            requireText(inputJson, "inputJson");
        }
    }

    /** What a tool returned; {@code output} is empty when the CLI reports nothing. */
    record ToolResult(String callId, String output, boolean isError) implements AgentEvent {
        public ToolResult {
            Objects.requireNonNull(callId, "callId");
            Objects.requireNonNull(output, "output");
        }
    }

    /**
     * Token counts of this run as the CLI reports them. When a CLI reports usage several times in one run, each
     * {@code Usage} is the running total so far, so the last one is the run's total. {@code inputTokens} is the CLI's
     * figure (OpenAI-style CLIs include the cached tokens in it, Anthropic-style ones do not); see docs/providers.md.
     *
     * @param costUsd the cost in US dollars if the CLI reports one, else {@code null}
     */
    record Usage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens, Double costUsd)
            implements AgentEvent {
        public Usage {
            if (inputTokens < 0 || outputTokens < 0 || cacheReadTokens < 0 || cacheWriteTokens < 0) {
                throw new IllegalArgumentException("token counts must not be negative");
            }
            if (costUsd != null && (costUsd.isNaN() || costUsd < 0)) {
                throw new IllegalArgumentException("costUsd must be a non-negative number");
            }
        }
    }

    /**
     * The CLI reported an error (an API error, a failed turn, a refused tool, an exit without a result). Whether the
     * run failed is decided by {@link Completed#success()}.
     *
     * @param code a short machine code: the CLI's own ({@code http_401}, {@code error_max_turns}, {@code APIError}, ...)
     *     or ours ({@code no_result}, {@code exit_status})
     */
    record Error(String code, String message) implements AgentEvent {
        public Error {
            requireText(code, "code");
            Objects.requireNonNull(message, "message");
        }
    }

    /**
     * The run is over; always the last event, exactly once.
     *
     * @param success the CLI reported success and exited with status 0
     * @param sessionId the session id seen in the stream, or {@code null} (CLIs without sessions)
     * @param resultText the final answer as the CLI reported it, or {@code null}
     */
    record Completed(boolean success, String sessionId, String resultText) implements AgentEvent {
    }

    /**
     * A line with no counterpart in this family: not JSON, an unknown event type, or a known event that carries
     * nothing the family models (the reason says which). Kept so that nothing is lost; not an error.
     */
    record Unrecognized(String rawLine, String reason) implements AgentEvent {
        public Unrecognized {
            Objects.requireNonNull(rawLine, "rawLine");
            requireText(reason, "reason");
        }
    }

    private static void requireText(String value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
    }
}
