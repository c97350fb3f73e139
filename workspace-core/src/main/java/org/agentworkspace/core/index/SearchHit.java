package org.agentworkspace.core.index;

import java.time.Instant;

/** One search result: a message matching the query, best first; {@code snippet} marks matches with « ». */
public record SearchHit(String provider, String sessionId, String projectName, String sessionTitle,
        String messageId, String role, Instant timestamp, String snippet, double score) {
}
