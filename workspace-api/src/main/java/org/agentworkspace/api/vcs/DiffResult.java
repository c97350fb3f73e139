package org.agentworkspace.api.vcs;

import java.util.Objects;

/**
 * A unified diff in git's format ({@code diff --git} headers, {@code index} lines with 7-digit ids, 3 lines of
 * context, no rename detection, {@code Binary files ... differ} for binary content).
 *
 * @param diff the diff text, decoded as UTF-8 (invalid bytes become U+FFFD)
 * @param truncated {@code true} when the diff was longer than {@link VcsOptions#maxDiffBytes()} and was cut after
 *                  the last whole line that fit
 */
public record DiffResult(String diff, boolean truncated) {
    public DiffResult {
        Objects.requireNonNull(diff, "diff");
    }
}
