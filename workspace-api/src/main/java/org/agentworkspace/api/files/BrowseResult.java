package org.agentworkspace.api.files;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A host folder as shown to the folder picker.
 *
 * @param path absolute real path of the folder (symbolic links resolved, {@code ~} expanded)
 * @param parent absolute real path of its parent, or {@code null} when the parent is outside the allowed roots
 * @param entries the folder's entries
 */
public record BrowseResult(String path, String parent, List<BrowseEntry> entries) {
    public BrowseResult {
        Objects.requireNonNull(path, "path");
        entries = List.copyOf(entries);
    }

    /** The parent, when the caller may browse it. */
    public Optional<String> findParent() {
        return Optional.ofNullable(parent);
    }
}
