package org.agentworkspace.api.vcs;

import java.util.List;
import java.util.Objects;

/**
 * Branches of a repository, sorted by name.
 *
 * @param current short name of the checked-out branch ({@code HEAD} when detached)
 * @param local short names of {@code refs/heads/*}
 * @param remote short names of {@code refs/remotes/*} such as {@code origin/main}, without symbolic refs such as
 *               {@code origin/HEAD}
 */
public record Branches(String current, List<String> local, List<String> remote) {
    public Branches {
        Objects.requireNonNull(current, "current");
        local = List.copyOf(local);
        remote = List.copyOf(remote);
    }
}
