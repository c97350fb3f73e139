package org.agentworkspace.core.history;

import java.util.concurrent.atomic.LongAdder;

/** Thread-safe cumulative counters of one reader. */
final class Counters {
    private final LongAdder records = new LongAdder();
    private final LongAdder corrupt = new LongAdder();
    private final LongAdder oversized = new LongAdder();
    private final LongAdder partialTails = new LongAdder();

    void add(ReadResult r) {
        records.add(r.recordsRead());
        corrupt.add(r.corruptLines());
        oversized.add(r.oversizedLines());
        if (r.partialTail()) {
            partialTails.increment();
        }
    }

    HistoryStats snapshot() {
        return new HistoryStats(records.sum(), corrupt.sum(), oversized.sum(), partialTails.sum());
    }
}
