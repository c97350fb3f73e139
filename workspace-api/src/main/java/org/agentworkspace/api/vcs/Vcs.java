package org.agentworkspace.api.vcs;

/**
 * Version control on one project working tree, opened by {@link VcsFactory#open}. Not thread-safe: open one per
 * request and close it.
 *
 * <p>Rules every implementation keeps: branch and remote names are validated before use and never become
 * command-line options; remotes are named, never given as URLs; credentials go only to allowed origins and are
 * never stored; no program configured by the repository (hooks, filter drivers, fsmonitor, external diff, custom
 * upload-pack) is ever run. Failures are {@link org.agentworkspace.api.WorkspaceException}s with the codes of
 * {@link VcsErrorCodes} and {@link org.agentworkspace.api.files.FileErrorCodes}; their messages never carry
 * credentials, remote URLs or host paths.
 */
public interface Vcs extends AutoCloseable {

    /** Branch, ahead/behind and changed paths; see {@link VcsStatus} for how paths are sorted into lists. */
    VcsStatus status();

    /** A unified diff of one path or the whole tree; see {@link DiffRequest} and {@link DiffResult}. */
    DiffResult diff(DiffRequest request);

    /** Local and remote-tracking branches. */
    Branches branches();

    /**
     * The history of HEAD, newest first, like {@code git log}: at most {@code limit} commits from the start, or
     * from where the page that gave {@code cursor} ended. A cursor pins the HEAD of the first page, so later pages
     * do not shift when commits are made meanwhile. A repository without commits has an empty log.
     *
     * @param cursor {@link CommitLog#next()} of the previous page, or {@code null} for the first page
     * @param limit  1 to {@link CommitLog#MAX_LIMIT}
     * @throws org.agentworkspace.api.WorkspaceException.Validation {@code VALIDATION_FAILED} for a limit out of
     *         range or a cursor this repository did not give
     */
    CommitLog log(String cursor, int limit);

    /**
     * Makes a commit; see {@link CommitRequest} for what goes into it. Without named files and with nothing staged,
     * it fails with {@link VcsErrorCodes#NOTHING_STAGED} when the working tree has changes (they need staging or
     * naming first), else {@link VcsErrorCodes#NOTHING_TO_COMMIT}.
     */
    CommitResult commit(CommitRequest request);

    /**
     * Stages paths like {@code git add -A -- <paths>}: each path's working-tree state (new, changed or deleted; a
     * folder means everything below it) goes into the index. No paths: every change of the working tree, like
     * {@code git add -A}. A named path must exist in the working tree, the index or HEAD ({@code FILE_NOT_FOUND});
     * one git cannot stage (ignored, an empty folder) is {@code INVALID_PATH}. Hooks and filters never run.
     */
    VcsStatus stage(java.util.List<org.agentworkspace.api.files.RelativePath> paths);

    /**
     * Unstages paths like {@code git reset -q -- <paths>}: each path's index entry goes back to HEAD's (removed
     * when HEAD lacks it); the working tree is not touched. No paths: the whole index, like {@code git reset -q}.
     * A named path must exist in the index or HEAD ({@code FILE_NOT_FOUND}).
     */
    VcsStatus unstage(java.util.List<org.agentworkspace.api.files.RelativePath> paths);

    /** Pushes without credentials. */
    default PushResult push(PushRequest request) {
        return push(request, null);
    }

    /**
     * Pushes a local branch to the same-named branch of a configured remote (refspec
     * {@code refs/heads/<b>:refs/heads/<b>}, built from a validated name, never parsed from the request). A branch
     * without an upstream gets this remote's branch as its upstream afterwards (like git's
     * {@code push.autoSetupRemote}).
     *
     * @param credentials sent only when the remote asks and its origin is allowed; {@code null} for none
     */
    PushResult push(PushRequest request, GitCredentials credentials);

    /** Pulls without credentials. */
    default PullResult pull() {
        return pull(null);
    }

    /**
     * Fetches the current branch's upstream from its configured remote and merges it (or rebases, when the
     * repository configures {@code pull.rebase} or {@code branch.<name>.rebase}), like {@code git pull}. The
     * upstream must be a branch on a configured remote ({@code NO_UPSTREAM} otherwise; a URL or {@code .} as
     * {@code branch.<name>.remote} is {@code REMOTE_NOT_FOUND}). Submodules are not fetched. A merge commit takes
     * its identity from the git configuration, like {@code git pull}. A conflicted merge is left as git leaves
     * it (conflict markers, merge in progress) and reported as {@code GIT_CONFLICT}.
     *
     * @param credentials sent only when the remote asks and its origin is allowed; {@code null} for none
     */
    PullResult pull(GitCredentials credentials);

    /**
     * Checks out a branch: an existing local branch; otherwise a remote-tracking branch {@code <remote>/<x>}
     * becomes a new local branch {@code x} tracking it; otherwise a name {@code x} matching exactly one
     * remote-tracking branch {@code <remote>/x} does the same (git's "guess"). Local changes that do not collide are
     * carried over; colliding ones stop the checkout with {@code GIT_CONFLICT} and change nothing.
     */
    CheckoutResult checkout(String branch);

    /** The ref prefix every snapshot lives under; snapshot refs outside it are refused. */
    String SNAPSHOT_REFS = "refs/agent-workspace/";

    /**
     * Records the working tree (tracked and untracked files, not ignored ones) as a commit whose parent is HEAD's
     * commit (none in a repository without commits) on {@code ref}, without touching the index, HEAD or the files.
     *
     * @param ref     a new ref under {@link #SNAPSHOT_REFS}
     * @param message the commit message
     * @throws org.agentworkspace.api.WorkspaceException.Conflict {@code FILE_EXISTS} when the ref exists
     * @throws org.agentworkspace.api.WorkspaceException.Validation {@code INVALID_REF_NAME} for a bad ref
     */
    Snapshot snapshot(String ref, String message);

    /** The snapshots whose refs start with {@code prefix} (under {@link #SNAPSHOT_REFS}), newest first. */
    java.util.List<Snapshot> snapshots(String prefix);

    /** The snapshot on {@code ref}, if there is one. */
    java.util.Optional<Snapshot> findSnapshot(String ref);

    /** Removes a snapshot ref; false when there was none. */
    boolean deleteSnapshot(String ref);

    /** The tree the working tree would record now, and HEAD's tree. Writes the new file contents as objects. */
    WorkingTreeState workingTree();

    /**
     * Makes the working tree's files equal to the snapshot's: files it has are written where they differ, files it
     * lacks are deleted (ignored files are left alone). The index and HEAD are not touched.
     *
     * @throws org.agentworkspace.api.WorkspaceException.NotFound {@code NOT_FOUND} when the ref does not exist
     */
    RestoreResult restoreSnapshot(String ref);

    /**
     * The paths that differ from tree-ish {@code from} to tree-ish {@code to} (commit or tree ids, or refs).
     *
     * @param limit the most changes returned (their lines counted); {@link TreeChanges#total()} counts all of them
     */
    TreeChanges changes(String from, String to, int limit);

    /**
     * The unified diff from tree-ish {@code from} to tree-ish {@code to}, in the format of {@link #diff} (cut at
     * {@link VcsOptions#maxDiffBytes()}).
     */
    DiffResult diff(String from, String to);

    @Override
    void close();
}
