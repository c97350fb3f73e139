package org.agentworkspace.core.index;

import java.time.Instant;

/**
 * One session as the index knows it. {@code title} is what a list shows: the title set through the API, else the
 * CLI's own title or summary, else the first prompt (cut to 80 characters), else the session id.
 * {@code messageCount} is null until the session's messages were read.
 */
public record IndexedSession(String provider, String sessionId, String projectName, String projectPath,
        String title, String customTitle, String firstPrompt, Instant createdAt, Instant lastActivity,
        Integer messageCount, boolean subagent) {
}
