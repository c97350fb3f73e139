package org.agentworkspace.core.history;

import java.time.Instant;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.Usage;

/** Mutable collector of {@link SessionFacts} during one read. Not thread-safe. */
final class FactsBuilder {
    String sessionId;
    String projectPath;
    String title;
    int titleRank;
    String firstPrompt;
    Instant firstActivity;
    Instant lastActivity;
    long messageCount;
    boolean subagent;
    Usage usage;
    boolean usageAbsolute;
    boolean reset;

    void sessionId(String id) {
        if (sessionId == null && id != null && !id.isBlank()) {
            sessionId = id;
        }
    }

    void project(String path) {
        if (projectPath == null && path != null && !path.isBlank()) {
            projectPath = path;
        }
    }

    void title(String t, int rank) {
        if (t != null && !t.isBlank() && rank >= titleRank) {
            title = t.strip();
            titleRank = rank;
        }
    }

    void activity(Instant t) {
        if (t == null) {
            return;
        }
        if (firstActivity == null || t.isBefore(firstActivity)) {
            firstActivity = t;
        }
        if (lastActivity == null || t.isAfter(lastActivity)) {
            lastActivity = t;
        }
    }

    void addUsage(Usage u) {
        if (u != null && !usageAbsolute) {
            usage = usage == null ? u : usage.plus(u);
        }
    }

    void absoluteUsage(Usage u) {
        if (u != null) {
            usage = u;
            usageAbsolute = true;
        }
    }

    void message(HistoryMessage m) {
        messageCount++;
        if (firstPrompt == null && HistoryMessage.USER.equals(m.role()) && HistoryMessage.TEXT.equals(m.kind())
                && !m.text().isBlank()) {
            firstPrompt = m.text();
        }
        activity(m.timestamp());
        addUsage(m.usage());
    }

    void reset() {
        messageCount = 0;
        firstPrompt = null;
        reset = true;
    }

    /** What a cheap summary needs from the head of a file (the session id is known from the file already). */
    boolean headComplete() {
        return projectPath != null && firstPrompt != null;
    }

    SessionFacts build() {
        return new SessionFacts(sessionId, projectPath, title, titleRank, firstPrompt, firstActivity, lastActivity,
                messageCount, subagent, usage, usageAbsolute, reset);
    }
}
