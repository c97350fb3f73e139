package org.agentworkspace.api.files;

import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a directory listing.
 *
 * @param name the entry's own name
 * @param path project-relative path with {@code /} separators
 * @param type file or directory (a symbolic link reports its target's type when the target is inside the project,
 *             otherwise {@code file})
 * @param size size in bytes for regular files, {@code null} for directories and for links leaving the project
 */
public record FileEntry(String name, String path, EntryType type, Long size) {
    public FileEntry {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(type, "type");
    }

    /** The size, when known. */
    public Optional<Long> findSize() {
        return Optional.ofNullable(size);
    }
}
