package org.agentworkspace.core.history;

/** Cumulative counters of one reader since it was created (all reads together). */
public record HistoryStats(long recordsRead, long corruptLines, long oversizedLines, long partialTails) {
}
