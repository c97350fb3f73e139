package org.agentworkspace.core.runs;

/**
 * A stored run with its typed owner and stored outcome: one row, no log read.
 *
 * @param outcome what its events reported, or {@code null} for a run stored before its outcome was kept (its log
 *                has to be read once: {@link RunEngine#storeOutcome})
 */
public record RunRecord(RunInfo info, RunOwner owner, RunOutcome outcome) {
}
