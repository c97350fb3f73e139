package org.agentworkspace.api.files;

import java.util.Optional;

/** Kind of a listed entry; {@link #wireName()} is the spec's value ({@code file} or {@code directory}). */
public enum EntryType {
    FILE("file"),
    DIRECTORY("directory");

    private final String wireName;

    EntryType(String wireName) {
        this.wireName = wireName;
    }

    /** The value written on the wire. */
    public String wireName() {
        return wireName;
    }

    /** Parses a wire value; empty for anything that is not exactly {@code file} or {@code directory}. */
    public static Optional<EntryType> findByWireName(String value) {
        for (EntryType type : values()) {
            if (type.wireName.equals(value)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }
}
