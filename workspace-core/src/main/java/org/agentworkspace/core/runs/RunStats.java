package org.agentworkspace.core.runs;

import java.time.Duration;

/**
 * A snapshot of the engine's counters, for diagnostics and metrics.
 *
 * @param running            runs with a live process
 * @param queued             runs waiting for a slot
 * @param pendingEntries     log entries taken but not yet written
 * @param entriesWritten     log entries written by the batch writer since the engine opened
 * @param transactions       store transactions the batch writer used for them
 * @param writerBusy         time the batch writer spent in the store
 */
public record RunStats(int running, int queued, int pendingEntries, long entriesWritten, long transactions,
                       Duration writerBusy) {
}
