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
        return displayTitle(title, firstPrompt, sessionId);
    }

    /** What a list shows for a session: {@code title}, else the first prompt as one line, else the id. */
    public static String displayTitle(String title, String firstPrompt, String sessionId) {
        if (title != null && !title.isBlank()) {
            return title;
        }
        if (firstPrompt != null && !firstPrompt.isBlank()) {
            return promptTitle(firstPrompt);
        }
        return sessionId;
    }

    /** Longest title made of a first prompt, in chars (the last one an ellipsis when cut). */
    static final int PROMPT_TITLE_CHARS = 80;

    /**
     * A first prompt as a one-line title: stripped, each run of the whitespace {@code \s} matches (space, tab, line
     * feed, vertical tab, form feed, carriage return) made one space, and cut to {@value #PROMPT_TITLE_CHARS} chars
     * (79 and an ellipsis). Reads no more of the prompt than the title needs: lists make one per session shown.
     */
    static String promptTitle(String firstPrompt) {
        String s = firstPrompt.strip();
        int n = s.length();
        StringBuilder b = new StringBuilder(Math.min(n, PROMPT_TITLE_CHARS + 1));
        boolean space = false;
        // stripped: it neither starts nor ends with such whitespace, so a run is always followed by another char
        for (int i = 0; i < n && b.length() <= PROMPT_TITLE_CHARS; i++) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r') {
                space = true;
            } else {
                if (space) {
                    b.append(' ');
                    space = false;
                }
                b.append(c);
            }
        }
        return b.length() <= PROMPT_TITLE_CHARS ? b.toString()
                : b.substring(0, PROMPT_TITLE_CHARS - 1) + "\u2026";
    }
}
