package org.agentworkspace.core.index;

import java.time.Instant;

/**
 * Progress of the history index. {@code state}: {@code listing} (phase 1: discovering files and peeking at their
 * heads; the project list is incomplete), {@code indexing} (phase 2: reading messages for full text; also again
 * later while more than {@link HistoryIndex#BACKLOG_INDEXING} sessions wait to be read), {@code ready}.
 * {@code listedAt} is set when phase 1 finished (the project list is complete), {@code readyAt} when phase 2 first
 * finished (full text complete).
 */
public record IndexStatus(String state, int sessions, int sessionsIndexed, long messages, int filesPending,
        long corruptLines, Instant startedAt, Instant listedAt, Instant readyAt) {
}
