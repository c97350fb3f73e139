package org.agentworkspace.git;

import java.nio.file.Path;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsFactory;
import org.agentworkspace.api.vcs.VcsOptions;

/**
 * Opens git working trees with JGit. The directory given must be the working tree's root: it holds {@code .git}
 * as a directory, or as a {@code gitdir:} file (linked worktrees); a {@code .git} symbolic link, a bare repository
 * or a subdirectory of a working tree is refused. Every repository is opened with {@link NoExecFS}, so nothing
 * the repository configures ever runs. Environment variables such as {@code GIT_DIR} are not read. POSIX hosts
 * only (Linux, macOS): the no-exec file system extends JGit's POSIX one. Remotes over ssh are not supported (JGit's
 * core has no ssh client); they fail with {@code GIT_REMOTE_UNAVAILABLE}.
 *
 * <p>This class names no JGit type: the service loader instantiates it when the engine starts, and JGit (a signed
 * jar, whose classes the JVM verifies against the signature as it loads them, and which a start-up cache skips) is
 * loaded only by the first {@link #open} ({@link JGitOpener}).
 */
public final class JGitVcsFactory implements VcsFactory {
    /** Used by {@code ServiceLoader}. */
    public JGitVcsFactory() {
    }

    @Override
    public String id() {
        return "git";
    }

    @Override
    public boolean isRepository(Path workTree) {
        try (Vcs vcs = open(workTree, VcsOptions.defaults())) {
            return vcs != null;
        } catch (WorkspaceException.Conflict e) {
            return false;
        }
    }

    @Override
    public Vcs open(Path workTree, VcsOptions options) {
        return JGitOpener.open(workTree, options);
    }
}
