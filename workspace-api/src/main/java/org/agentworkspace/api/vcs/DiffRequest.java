package org.agentworkspace.api.vcs;

import java.util.Objects;
import java.util.Optional;

import org.agentworkspace.api.files.RelativePath;

/**
 * What to diff. Unstaged ({@code staged = false}) is the working tree against the index, like {@code git diff};
 * staged is the index against HEAD, like {@code git diff --cached}.
 *
 * @param file one path (a file, or a directory to limit the diff to it); the root means the whole tree
 * @param staged index against HEAD instead of working tree against index
 */
public record DiffRequest(RelativePath file, boolean staged) {
    public DiffRequest {
        Objects.requireNonNull(file, "file");
    }

    /** The whole tree. */
    public static DiffRequest wholeTree(boolean staged) {
        return new DiffRequest(RelativePath.root(), staged);
    }

    /** One file or directory. */
    public static DiffRequest of(RelativePath file, boolean staged) {
        return new DiffRequest(file, staged);
    }

    /** The path the diff is limited to, if any. */
    public Optional<RelativePath> findFile() {
        return file.isRoot() ? Optional.empty() : Optional.of(file);
    }
}
