package org.agentworkspace.api.files;

import java.util.Objects;

/**
 * What a delete removed. A symbolic link is always removed as a link ({@code type = file}, never its target).
 *
 * @param path project-relative path that was removed
 * @param type what it was
 * @param recursive {@code true} when a directory was removed with everything below it
 * @param entriesRemoved how many files, links and directories were removed, the entry itself included
 */
public record DeleteResult(String path, EntryType type, boolean recursive, long entriesRemoved) {
    public DeleteResult {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(type, "type");
    }
}
