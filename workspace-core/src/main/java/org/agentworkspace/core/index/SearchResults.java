package org.agentworkspace.core.index;

import java.util.List;

/** Ranked hits and the number of matching messages (counted up to {@link HistoryIndex#MAX_TOTAL}). */
public record SearchResults(List<SearchHit> results, int total) {
}
