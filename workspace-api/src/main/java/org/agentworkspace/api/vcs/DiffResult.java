package org.agentworkspace.api.vcs;

import java.util.Objects;

/**
 * A unified diff in git's format: {@code diff --git} headers, {@code index} lines with 7-digit ids (git itself
 * uses longer ids in large repositories unless given {@code --abbrev=7}), 3 lines of context, hunk headers with
 * git's default function context, no rename detection, {@code Binary files ... differ} for binary content. It
 * equals {@code git diff --no-renames --no-ext-diff --abbrev=7} (with {@code --cached} when staged), except that
 * {@code diff.<driver>.xfuncname} patterns and external diff or textconv programs are never used.
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
