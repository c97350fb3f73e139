package org.agentworkspace.api.files;

import java.util.Objects;

/** One entry of a host folder listing: a name and a type, never sizes, contents or link targets. */
public record BrowseEntry(String name, EntryType type) {
    public BrowseEntry {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
    }
}
