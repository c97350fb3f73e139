package org.agentworkspace.api.vcs;

import java.util.Locale;
import java.util.Objects;

/** One path that differs between two recorded trees. */
public record TreeChange(String path, Kind kind) {
    public TreeChange {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(kind, "kind");
    }

    public enum Kind {
        ADDED, MODIFIED, DELETED;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
