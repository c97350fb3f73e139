package org.agentworkspace.api.history;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the session list needs about one CLI session, read from the CLI's own files.
 *
 * <ul>
 *   <li>{@code projectPath}: the absolute working directory recorded IN the session (never decoded from a folder
 *       name); null when the session records none and nothing else maps it (cursor without a known project).</li>
 *   <li>{@code title}: the CLI's own title or summary of the session (custom title, AI title, summary), null when it
 *       wrote none; a list shows {@link #displayTitle()}.</li>
 *   <li>{@code firstPrompt}: the first prompt the user typed (injected context and command noise excluded).</li>
 *   <li>{@code createdAt} / {@code lastActivity}: first and last timestamps recorded in the session (file times when
 *       the session records none).</li>
 *   <li>{@code messageCount}: number of {@link HistoryMessage}s; null when the summary came from a cheap peek that
 *       did not read the whole session.</li>
 *   <li>{@code subagent}: the session is a sub-agent's transcript (codex sub-agent thread, opencode child session,
 *       gemini non-main chat); lists normally hide these.</li>
 *   <li>{@code usage}: token totals over the session, null when the provider records none.</li>
 *   <li>{@code sourceFiles}: the files the session was read from (for a shared SQLite store: the database file).</li>
 * </ul>
 */
public record SessionSummary(
        String provider,
        String sessionId,
        String projectPath,
        String title,
        String firstPrompt,
        Instant createdAt,
        Instant lastActivity,
        Integer messageCount,
        boolean subagent,
        Usage usage,
        List<String> sourceFiles) {

    public SessionSummary {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(lastActivity, "lastActivity");
        sourceFiles = List.copyOf(Objects.requireNonNull(sourceFiles, "sourceFiles"));
    }

    public SessionRef ref() {
        return new SessionRef(provider, sessionId);
    }

    /** The title to show: {@code title}, else the first prompt cut to 80 characters, else the session id. */
    public String displayTitle() {
        if (title != null && !title.isBlank()) {
            return title;
        }
        if (firstPrompt != null && !firstPrompt.isBlank()) {
            String oneLine = firstPrompt.strip().replaceAll("\\s+", " ");
            return oneLine.length() <= 80 ? oneLine : oneLine.substring(0, 79) + "\u2026";
        }
        return sessionId;
    }
}
