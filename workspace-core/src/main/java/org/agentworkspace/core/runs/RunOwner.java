package org.agentworkspace.core.runs;

/**
 * Who a run belongs to and where it came from, stored as typed columns of the run row (migration V017) so that
 * visibility, the session↔run index and the filters of a listing are SQL, not a replay of JSON metadata.
 *
 * @param accountId the owning account (the caller; a task's owner), or {@code null} for a run of no account
 * @param project   the registered project's name the run was started in, or {@code null}
 * @param taskId    the scheduled task that started it, or {@code null}
 * @param origin    what started it: {@code automation}, {@code agent}, {@code ws}, {@code task}, {@code agent-loop},
 *                  {@code ci-repair} …, or {@code null}
 * @param sessionId the CLI session the run continues; the run log's writer replaces it with the session the CLI
 *                  reports
 */
public record RunOwner(Long accountId, String project, String taskId, String origin, String sessionId) {
    /** Nobody's run. */
    public static final RunOwner NONE = new RunOwner(null, null, null, null, null);

    public RunOwner withSessionId(String id) {
        return new RunOwner(accountId, project, taskId, origin, id);
    }
}
