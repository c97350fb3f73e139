package org.agentworkspace.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Objects;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.agentworkspace.api.vcs.VcsOptions;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.util.FS;

/** The JGit side of {@link JGitVcsFactory#open}, loaded on the first open (see there). */
final class JGitOpener {
    private static final FS FS_NO_EXEC = new NoExecFS();

    private JGitOpener() {
    }

    static Vcs open(Path workTree, VcsOptions options) {
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
        FileRepositoryBuilder builder = new FileRepositoryBuilder().setFS(FS_NO_EXEC.newInstance())
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
