package org.agentworkspace.core.loop;

import java.time.Instant;

/**
 * A project's working tree recorded on {@code refs/agent-workspace/checkpoints/<id>}.
 *
 * @param id        {@code cp_…}
 * @param projectId the registered project
 * @param label     the label given at creation, or {@code null}
 * @param ref       the git ref holding it
 * @param commit    the commit id on the ref
 * @param tree      the recorded tree's id
 * @param createdAt when it was recorded (second precision, the commit time)
 * @param createdBy the administrator's user name, or {@code null}
 */
public record Checkpoint(String id, String projectId, String label, String ref, String commit, String tree,
                         Instant createdAt, String createdBy) {
}
