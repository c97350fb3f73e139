package org.agentworkspace.core.index;

import java.time.Instant;
import java.util.List;

/**
 * One entry of the unified project list: a project found in the history (the working directory its sessions
 * recorded), a registered project, or both merged (the same {@code name}: slug + hash of the path, as
 * {@link org.agentworkspace.core.projects.ProjectRegistry#nameFor}). {@code sessions} holds the newest
 * {@link HistoryIndex#LIST_SESSIONS} sessions; {@code sessionCount} counts all (sub-agent sessions excluded).
 */
public record IndexedProject(String name, String displayName, String path, boolean registered,
        Instant lastActivity, int sessionCount, List<IndexedSession> sessions) {
}
