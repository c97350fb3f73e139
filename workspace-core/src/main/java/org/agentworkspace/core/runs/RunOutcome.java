package org.agentworkspace.core.runs;

/**
 * What a run's unified events reported, stored in the run row by the log's writer in the same transaction as the
 * events themselves, so a listing reads it instead of replaying the log. Events are the objects
 * {@code {"kind": …, "data": {…}}} of the agent bridge (docs/agent-runs.md); a run whose parser writes other events
 * has an empty outcome.
 *
 * @param success      the {@code completed} event's verdict, or {@code null} while none was stored
 * @param sessionId    the CLI session id ({@code session} or {@code completed} event), or {@code null}
 * @param resultText   the {@code completed} event's result text, or {@code null}
 * @param lastText     the newest assistant {@code text} event's text, or {@code null}
 * @param usage        the newest {@code usage} event (the CLIs report running totals), or {@code null}
 * @param errorCode    the first {@code error} event's code, or {@code null}
 * @param errorMessage the first {@code error} event's message (as the CLI wrote it: redact before showing), or null
 */
public record RunOutcome(Boolean success, String sessionId, String resultText, String lastText, Usage usage,
                         String errorCode, String errorMessage) {
    public static final RunOutcome EMPTY = new RunOutcome(null, null, null, null, null, null, null);

    /** Token counts; {@code cost} in US dollars when the CLI reports one. */
    public record Usage(long input, long output, long cacheRead, long cacheWrite, Double cost) {
    }
}
