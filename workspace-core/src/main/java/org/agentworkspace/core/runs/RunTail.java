package org.agentworkspace.core.runs;

import java.util.List;

/**
 * The end of a run's log: its newest log lines and statuses (not parsed events), newest first, and its last seq.
 */
public record RunTail(List<RunEntry> lines, long lastSeq) {
    public RunTail {
        lines = List.copyOf(lines);
    }
}
