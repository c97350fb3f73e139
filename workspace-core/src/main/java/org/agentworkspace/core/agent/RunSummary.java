package org.agentworkspace.core.agent;

import java.util.List;

/**
 * What a run produced so far, read from its stored log: the outcome the CLI reported, its session, the final text,
 * the token usage and the most recent log lines.
 *
 * @param success        the {@code completed} event's verdict, or {@code null} while none was stored
 * @param sessionId      the CLI's session id ({@code null} for CLIs without sessions, such as grok)
 * @param text           the final answer: the completion's result text, else the last assistant message
 * @param usage          the last usage the CLI reported (a running total), or {@code null}
 * @param error          the first error event, or {@code null}
 * @param lastSeq        the sequence number of the newest entry read
 * @param logs           the newest log lines, oldest first
 * @param logsTruncated  older lines were dropped from {@code logs}
 */
public record RunSummary(Boolean success, String sessionId, String text, Usage usage, ErrorInfo error, long lastSeq,
                         List<LogLine> logs, boolean logsTruncated) {

    /** Token counts of the run; {@code cost} in US dollars when the CLI reports one. */
    public record Usage(long input, long output, long cacheRead, long cacheWrite, Double cost) {
        public long total() {
            return input + output;
        }
    }

    public record ErrorInfo(String code, String message) {
    }

    /**
     * @param stream {@code stdout}, {@code stderr} or {@code system}
     */
    public record LogLine(long seq, java.time.Instant at, String stream, String text) {
    }
}
