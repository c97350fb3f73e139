package org.agentworkspace.core.tasks;

import java.time.Instant;

/**
 * A stored task.
 *
 * @param id            opaque id ({@code task_} + 24 hex digits)
 * @param userId        the owner (who created it; the runs it starts are theirs)
 * @param name          display name (derived from the prompt when not given)
 * @param prompt        what the agent is asked
 * @param agentType     provider id
 * @param model         model id or null
 * @param projectId     registered project name the runs work in
 * @param schedule      when it runs
 * @param status        its state
 * @param nextRunAt     when it runs next (null when paused, running a one-time task, or ended)
 * @param lastRunAt     when its latest run started
 * @param lastRunStatus the wire status of its latest finished run, or null
 * @param runCount      runs started so far
 * @param timeoutMs     a run still alive after this long is stopped (null: the engine's limits only)
 * @param activeRunId   the run in progress, or null
 * @param isolation     where every run the task fires works: {@code host} (the project itself) or {@code worktree}
 *                      (each run in its own git worktree, docs/runs.md "Worktree isolation")
 */
public record AutomationTask(String id, long userId, String name, String prompt, String agentType, String model,
                             String projectId, Schedule schedule, TaskStatus status, Instant nextRunAt,
                             Instant lastRunAt, String lastRunStatus, int runCount, Long timeoutMs,
                             String activeRunId, Instant createdAt, Instant updatedAt, String isolation) {
    public AutomationTask {
        isolation = isolation == null ? "host" : isolation;
    }
}
