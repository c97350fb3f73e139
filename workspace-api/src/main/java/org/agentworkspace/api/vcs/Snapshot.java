package org.agentworkspace.api.vcs;

import java.time.Instant;
import java.util.Objects;

/**
 * A working tree recorded as a commit on a private ref (under {@link Vcs#SNAPSHOT_REFS}): tracked and untracked
 * files, not the ignored ones. Recording it touches neither the index, nor HEAD, nor the working tree.
 *
 * @param ref       the full ref name, e.g. {@code refs/agent-workspace/checkpoints/cp_1a2b}
 * @param commit    the commit id (40 hex digits)
 * @param tree      the id of the recorded tree
 * @param message   the commit message as recorded
 * @param createdAt the commit time
 */
public record Snapshot(String ref, String commit, String tree, String message, Instant createdAt) {
    public Snapshot {
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(commit, "commit");
        Objects.requireNonNull(tree, "tree");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
