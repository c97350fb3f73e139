package org.agentworkspace.api.vcs;

import java.util.Objects;

/**
 * A pull that completed (a pull that stops on conflicts raises {@code GIT_CONFLICT} instead).
 *
 * @param outcome what changed
 * @param head full id of HEAD afterwards
 */
public record PullResult(Outcome outcome, String head) {
    public PullResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(head, "head");
    }

    /** What a pull did. */
    public enum Outcome {
        UP_TO_DATE,
        FAST_FORWARD,
        MERGED,
        REBASED
    }
}
