package org.agentworkspace.core.files;

import java.util.Objects;

import org.agentworkspace.api.files.RelativePath;
import org.agentworkspace.api.vcs.Branches;
import org.agentworkspace.api.vcs.CheckoutResult;
import org.agentworkspace.api.vcs.CommitRequest;
import org.agentworkspace.api.vcs.CommitResult;
import org.agentworkspace.api.vcs.DiffRequest;
import org.agentworkspace.api.vcs.DiffResult;
import org.agentworkspace.api.vcs.GitCredentials;
import org.agentworkspace.api.vcs.PullResult;
import org.agentworkspace.api.vcs.PushRequest;
import org.agentworkspace.api.vcs.PushResult;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsFactory;
import org.agentworkspace.api.vcs.VcsOptions;
import org.agentworkspace.api.vcs.VcsStatus;

/**
 * A {@link Vcs} whose file paths (the diff's file, the commit's, stage's and unstage's files) pass {@link PathGuard#resolveEntry} before
 * they reach the implementation: the same confinement rules as the file API, so {@code lnk/x} with {@code lnk}
 * pointing outside the project is {@code PATH_OUTSIDE_PROJECT} here too.
 */
public final class GuardedVcs implements Vcs {
    private final Vcs delegate;
    private final PathGuard guard;

    private GuardedVcs(Vcs delegate, PathGuard guard) {
        this.delegate = delegate;
        this.guard = guard;
    }

    /** Opens the project at {@code guard.root()} with {@code factory} and guards it. */
    public static Vcs open(VcsFactory factory, PathGuard guard, VcsOptions options) {
        return new GuardedVcs(factory.open(guard.root(), options), guard);
    }

    public static Vcs wrap(Vcs delegate, PathGuard guard) {
        return new GuardedVcs(Objects.requireNonNull(delegate, "delegate"), Objects.requireNonNull(guard, "guard"));
    }

    private void check(RelativePath path) {
        if (!path.isRoot()) {
            guard.resolveEntry(path);
        }
    }

    @Override
    public VcsStatus status() {
        return delegate.status();
    }

    @Override
    public DiffResult diff(DiffRequest request) {
        check(request.file());
        return delegate.diff(request);
    }

    @Override
    public Branches branches() {
        return delegate.branches();
    }

    @Override
    public org.agentworkspace.api.vcs.CommitLog log(String cursor, int limit) {
        return delegate.log(cursor, limit);
    }

    @Override
    public CommitResult commit(CommitRequest request) {
        request.files().forEach(this::check);
        return delegate.commit(request);
    }

    @Override
    public VcsStatus stage(java.util.List<org.agentworkspace.api.files.RelativePath> paths) {
        paths.forEach(this::check);
        return delegate.stage(paths);
    }

    @Override
    public VcsStatus unstage(java.util.List<org.agentworkspace.api.files.RelativePath> paths) {
        paths.forEach(this::check); // the entry need not exist (a staged deletion)
        return delegate.unstage(paths);
    }

    @Override
    public PushResult push(PushRequest request, GitCredentials credentials) {
        return delegate.push(request, credentials);
    }

    @Override
    public PullResult pull(GitCredentials credentials) {
        return delegate.pull(credentials);
    }

    @Override
    public CheckoutResult checkout(String branch) {
        return delegate.checkout(branch);
    }

    @Override
    public org.agentworkspace.api.vcs.Snapshot snapshot(String ref, String message) {
        return delegate.snapshot(ref, message);
    }

    @Override
    public java.util.List<org.agentworkspace.api.vcs.Snapshot> snapshots(String prefix) {
        return delegate.snapshots(prefix);
    }

    @Override
    public java.util.Optional<org.agentworkspace.api.vcs.Snapshot> findSnapshot(String ref) {
        return delegate.findSnapshot(ref);
    }

    @Override
    public boolean deleteSnapshot(String ref) {
        return delegate.deleteSnapshot(ref);
    }

    @Override
    public org.agentworkspace.api.vcs.WorkingTreeState workingTree() {
        return delegate.workingTree();
    }

    @Override
    public org.agentworkspace.api.vcs.RestoreResult restoreSnapshot(String ref) {
        return delegate.restoreSnapshot(ref);
    }

    @Override
    public org.agentworkspace.api.vcs.TreeChanges changes(String from, String to, int limit) {
        return delegate.changes(from, to, limit);
    }

    @Override
    public DiffResult diff(String from, String to) {
        return delegate.diff(from, to);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
