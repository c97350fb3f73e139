package org.agentworkspace.api.vcs;

import java.nio.file.Path;

/** Service-provider interface of a version-control implementation, found with {@code ServiceLoader}. */
public interface VcsFactory {

    /** Stable id of the implementation, e.g. {@code git}. */
    String id();

    /** {@code true} when {@code workTree} is the root of a working tree this implementation can open. */
    boolean isRepository(Path workTree);

    /**
     * Opens the working tree whose root is {@code workTree} (the directory that holds {@code .git}).
     *
     * @throws org.agentworkspace.api.WorkspaceException.Conflict with {@code NOT_A_GIT_REPOSITORY}
     */
    Vcs open(Path workTree, VcsOptions options);

    /** Opens with {@link VcsOptions#defaults()}. */
    default Vcs open(Path workTree) {
        return open(workTree, VcsOptions.defaults());
    }
}
