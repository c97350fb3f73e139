package org.agentworkspace.api.vcs;

import java.util.Locale;
import java.util.Objects;

/**
 * One path that differs between two recorded trees.
 *
 * @param insertions lines added (as {@code git diff --numstat} counts them), {@code null} for binary content or
 *                   when not counted
 * @param deletions  lines removed, likewise
 */
public record TreeChange(String path, Kind kind, Integer insertions, Integer deletions) {
    public TreeChange {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(kind, "kind");
    }

    /** A change whose lines were not counted. */
    public TreeChange(String path, Kind kind) {
        this(path, kind, null, null);
    }

    public enum Kind {
        ADDED, MODIFIED, DELETED;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
