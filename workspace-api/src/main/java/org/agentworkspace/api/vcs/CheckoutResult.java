package org.agentworkspace.api.vcs;

import java.util.Objects;
import java.util.Optional;

/**
 * A checkout that completed.
 *
 * @param branch the local branch now checked out
 * @param created {@code true} when the branch was created from a remote-tracking branch
 * @param upstream the remote-tracking branch it tracks (e.g. {@code origin/x}), or {@code null}
 */
public record CheckoutResult(String branch, boolean created, String upstream) {
    public CheckoutResult {
        Objects.requireNonNull(branch, "branch");
    }

    public Optional<String> findUpstream() {
        return Optional.ofNullable(upstream);
    }
}
