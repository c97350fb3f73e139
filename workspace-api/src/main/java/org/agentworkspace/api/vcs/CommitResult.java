package org.agentworkspace.api.vcs;

import java.util.Objects;

/**
 * A commit that was made.
 *
 * @param commitId full hexadecimal id of the new commit
 * @param branch the branch it was made on ({@code HEAD} when detached)
 */
public record CommitResult(String commitId, String branch) {
    public CommitResult {
        Objects.requireNonNull(commitId, "commitId");
        Objects.requireNonNull(branch, "branch");
    }
}
