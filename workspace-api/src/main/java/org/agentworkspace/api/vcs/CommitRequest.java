package org.agentworkspace.api.vcs;

import java.util.List;
import java.util.Objects;

import org.agentworkspace.api.files.RelativePath;

/**
 * A commit.
 *
 * <p>Without files, the commit records everything staged, like {@code git commit}. With files, like
 * {@code git add -A -- <files>} followed by {@code git commit --only -- <files>}: each named path's working-tree
 * state (new, changed or deleted; a directory means everything below it) is staged and committed, and nothing
 * else: other staged changes stay staged and out of the commit. Each named path must exist in the working tree,
 * the index or HEAD. Hooks never run.
 *
 * @param message the commit message, not blank, at most {@value #MAX_MESSAGE_LENGTH} characters; trailing
 *                whitespace is removed from each line, like {@code git commit -m}
 * @param files paths to commit; empty means everything staged
 * @param author author and committer
 */
public record CommitRequest(String message, List<RelativePath> files, CommitIdentity author) {
    /** Longest accepted message, in characters. */
    public static final int MAX_MESSAGE_LENGTH = 65_536;

    public CommitRequest {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(author, "author");
        files = List.copyOf(files);
    }

    /** Everything staged. */
    public static CommitRequest staged(String message, CommitIdentity author) {
        return new CommitRequest(message, List.of(), author);
    }

    /** Exactly the named paths. */
    public static CommitRequest ofFiles(String message, List<RelativePath> files, CommitIdentity author) {
        return new CommitRequest(message, files, author);
    }
}
