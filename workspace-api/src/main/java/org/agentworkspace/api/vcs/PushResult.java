package org.agentworkspace.api.vcs;

import java.util.Objects;

/**
 * A push that the remote accepted.
 *
 * @param remote the remote's configured name
 * @param branch the branch pushed
 * @param upToDate {@code true} when the remote already had the commit
 */
public record PushResult(String remote, String branch, boolean upToDate) {
    public PushResult {
        Objects.requireNonNull(remote, "remote");
        Objects.requireNonNull(branch, "branch");
    }
}
