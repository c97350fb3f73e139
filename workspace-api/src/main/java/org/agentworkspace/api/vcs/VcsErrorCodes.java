package org.agentworkspace.api.vcs;

/**
 * Stable error codes of the VCS API, each always raised with the {@link org.agentworkspace.api.WorkspaceException}
 * subtype written next to it. Paths handed to the VCS API fail with the codes of
 * {@link org.agentworkspace.api.files.FileErrorCodes}.
 */
public final class VcsErrorCodes {
    private VcsErrorCodes() {
    }

    /** {@code Conflict}: the project directory is not the root of a git working tree. */
    public static final String NOT_A_GIT_REPOSITORY = "NOT_A_GIT_REPOSITORY";
    /** {@code Conflict}: a pull or checkout stopped on conflicting changes; the message names how many paths. */
    public static final String GIT_CONFLICT = "GIT_CONFLICT";
    /** {@code Conflict}: the remote refused the update (not a fast-forward, stale lease, or refused by the remote). */
    public static final String GIT_PUSH_REJECTED = "GIT_PUSH_REJECTED";
    /**
     * {@code Forbidden}: the remote asked for credentials and refused the ones given, or none were given, or they
     * were withheld because the remote is not on an allowed credential origin (the message says which).
     */
    public static final String GIT_AUTH_FAILED = "GIT_AUTH_FAILED";
    /** {@code Validation}: a branch name fails git's ref-name rules, starts with {@code -} or {@code +}, or is HEAD. */
    public static final String INVALID_REF_NAME = "INVALID_REF_NAME";
    /** {@code NotFound}: the remote name is not a remote configured in the repository. */
    public static final String REMOTE_NOT_FOUND = "REMOTE_NOT_FOUND";
    /** {@code NotFound}: no local branch (or remote-tracking branch, for checkout) has that name. */
    public static final String BRANCH_NOT_FOUND = "BRANCH_NOT_FOUND";
    /** {@code Conflict}: the commit would record no change, and the working tree has none either. */
    public static final String NOTHING_TO_COMMIT = "NOTHING_TO_COMMIT";
    /**
     * {@code Conflict}: a commit of what is staged, with nothing staged while the working tree has changes: stage
     * them first, or name them in the commit. The message says how many paths are changed.
     */
    public static final String NOTHING_STAGED = "NOTHING_STAGED";
    /** {@code Conflict}: pull needs an upstream and the current branch has none (or HEAD is detached). */
    public static final String NO_UPSTREAM = "NO_UPSTREAM";
    /** {@code Unavailable}: the remote could not be reached or is not a repository. */
    public static final String GIT_REMOTE_UNAVAILABLE = "GIT_REMOTE_UNAVAILABLE";
    /**
     * {@code Forbidden}: the repository's configuration asks for something the service refuses to do: run an
     * external program (a clean or smudge filter driver), use a remote protocol other than a local path, file,
     * http(s), ssh or git, read or keep an http cookie file, or send credentials with TLS verification off.
     */
    public static final String GIT_UNSAFE_CONFIG = "GIT_UNSAFE_CONFIG";
    /** {@code Conflict}: the repository is in a state the operation cannot start from (e.g. a merge in progress). */
    public static final String GIT_INVALID_STATE = "GIT_INVALID_STATE";

    /** {@code Unavailable}: no git implementation is installed (the engine was embedded without workspace-git). */
    public static final String GIT_UNAVAILABLE = "GIT_UNAVAILABLE";

    /** Old name of {@link #GIT_PUSH_REJECTED}. */
    @Deprecated(forRemoval = true)
    public static final String PUSH_REJECTED = GIT_PUSH_REJECTED;
    /** Old name of {@link #GIT_REMOTE_UNAVAILABLE}. */
    @Deprecated(forRemoval = true)
    public static final String REMOTE_UNAVAILABLE = GIT_REMOTE_UNAVAILABLE;
}
