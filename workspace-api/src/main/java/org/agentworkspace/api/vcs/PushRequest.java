package org.agentworkspace.api.vcs;

import java.util.Objects;
import java.util.Optional;

/**
 * A push of one local branch to the same-named branch of a configured remote.
 *
 * @param remote the name of a remote configured in the repository (never a URL); {@code origin} by default
 * @param branch the local branch to push; {@code null} for the current branch
 * @param force overwrite the remote branch even when it is not a fast-forward, but only if the remote branch is
 *              still where our remote-tracking branch says it is (git's {@code --force-with-lease}); without a
 *              remote-tracking branch the remote branch must not exist
 */
public record PushRequest(String remote, String branch, boolean force) {
    /** The remote used when a request names none. */
    public static final String DEFAULT_REMOTE = "origin";

    public PushRequest {
        Objects.requireNonNull(remote, "remote");
    }

    /** The current branch to {@code origin}, without force. */
    public static PushRequest currentBranch() {
        return new PushRequest(DEFAULT_REMOTE, null, false);
    }

    /** The branch, when one was named. */
    public Optional<String> findBranch() {
        return Optional.ofNullable(branch);
    }
}
