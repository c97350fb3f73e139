package org.agentworkspace.core.loop;

import java.time.Instant;

/**
 * An unattended run that changed files in a git working tree, and the administrator's decision on it.
 *
 * @param id            the run's id (one item per run)
 * @param projectId     the registered project the run was started in, or {@code null}
 * @param projectPath   the folder it ran in
 * @param provider      the provider id
 * @param route         {@code automation}, {@code task} or {@code agent}
 * @param taskId        the automation task that started it, or {@code null}
 * @param userId        the user it ran as, or {@code null}
 * @param runStatus     how the run ended ({@code succeeded}, {@code failed} …), {@code null} while it runs
 * @param status        {@code recording} (still running), {@code unchanged}, {@code pending}, {@code approved},
 *                      {@code rejected}
 * @param filesAdded    files the run added (null until it ended)
 * @param filesModified files it changed
 * @param filesDeleted  files it deleted
 * @param beforeRef     the snapshot ref of the working tree when the run started
 * @param afterRef      the snapshot ref when it ended, or {@code null}
 * @param note          the decision's note, or {@code null}
 * @param decidedBy     the deciding administrator's user name, or {@code null}
 * @param decidedAt     when it was decided, or {@code null}
 * @param createdAt     when the run started
 * @param endedAt       when the run ended, or {@code null}
 * @param beforeCommit  the commit the before snapshot recorded ({@code null} for records older than this field)
 * @param afterCommit   the commit the after snapshot recorded, or {@code null}
 * @param recordChanged the refs no longer name these commits (deleted or moved, perhaps by the run itself), or the
 *                      record could not be completed: the item is kept for review, and a revert is refused
 */
public record ReviewItem(String id, String projectId, String projectPath, String provider, String route,
                         String taskId, Long userId, String runStatus, String status, Integer filesAdded,
                         Integer filesModified, Integer filesDeleted, String beforeRef, String afterRef, String note,
                         String decidedBy, Instant decidedAt, Instant createdAt, Instant endedAt,
                         String beforeCommit, String afterCommit, boolean recordChanged) {
    /** What the item's diff starts from: the recorded commit, or for older records the ref. */
    String from() {
        return beforeCommit != null ? beforeCommit : beforeRef;
    }

    /** What the item's diff ends at. */
    String to() {
        return afterCommit != null ? afterCommit : afterRef;
    }
}
