package org.agentworkspace.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Objects;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.agentworkspace.api.vcs.VcsFactory;
import org.agentworkspace.api.vcs.VcsOptions;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.util.FS;

/**
 * Opens git working trees with JGit. The directory given must be the working tree's root: it holds {@code .git}
 * as a directory, or as a {@code gitdir:} file (linked worktrees); a {@code .git} symbolic link, a bare repository
 * or a subdirectory of a working tree is refused. Every repository is opened with {@link NoExecFS}, so nothing
 * the repository configures ever runs. Environment variables such as {@code GIT_DIR} are not read. POSIX hosts
 * only (Linux, macOS): the no-exec file system extends JGit's POSIX one. Remotes over ssh are not supported (JGit's
 * core has no ssh client); they fail with {@code GIT_REMOTE_UNAVAILABLE}.
 */
public final class JGitVcsFactory implements VcsFactory {
    private final FS fs = new NoExecFS();

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
        Objects.requireNonNull(workTree, "workTree");
        Objects.requireNonNull(options, "options");
        Path root;
        try {
            root = workTree.toRealPath();
        } catch (IOException e) {
            throw notARepository();
        }
        Path dotGit = root.resolve(".git");
        if (!Files.isDirectory(root) || Files.isSymbolicLink(dotGit)
                || !Files.exists(dotGit, LinkOption.NOFOLLOW_LINKS)) {
            throw notARepository();
        }
        FileRepositoryBuilder builder = new FileRepositoryBuilder().setFS(fs.newInstance())
                .setWorkTree(root.toFile()).setMustExist(true);
        if (Files.isDirectory(dotGit, LinkOption.NOFOLLOW_LINKS)) {
            builder.setGitDir(dotGit.toFile());
        }
        Repository repository;
        try {
            repository = builder.build();
        } catch (RepositoryNotFoundException | IllegalArgumentException e) {
            throw notARepository();
        } catch (IOException e) {
            throw notARepository();
        }
        if (repository.isBare()) {
            repository.close();
            throw notARepository();
        }
        return new JGitVcs(repository, options);
    }

    private static WorkspaceException notARepository() {
        return new WorkspaceException.Conflict(VcsErrorCodes.NOT_A_GIT_REPOSITORY,
                "the project directory is not the root of a git working tree");
    }
}
