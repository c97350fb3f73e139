package org.agentworkspace.core.loop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;


import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.vcs.RestoreResult;
import org.agentworkspace.api.vcs.Snapshot;
import org.agentworkspace.api.vcs.TreeChange;
import org.agentworkspace.api.vcs.TreeChanges;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsFactory;
import org.agentworkspace.api.vcs.WorkingTreeState;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunOwner;
import org.agentworkspace.core.runs.RunObserver;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.JdbiException;

/**
 * The review queue. As a {@link RunObserver} it records the working tree of every unattended run (routes
 * {@code automation}, {@code task}, {@code agent} and {@code ci-repair}; chat turns have their user watching) started in the root of a
 * git working tree: a snapshot when the process is about to start ({@code refs/agent-workspace/runs/<runId>/before})
 * and one when the run has ended ({@code …/after}). A run that changed no file leaves no item and no refs; one that
 * did becomes a {@code pending} item with its counts, until an administrator approves or rejects it. Rejecting may
 * revert the files to the {@code before} snapshot, with the same safety rule as a checkpoint restore.
 */
public final class ReviewQueue implements RunObserver {
    private static final System.Logger LOG = System.getLogger(ReviewQueue.class.getName());
    static final String PREFIX = Vcs.SNAPSHOT_REFS + "runs/";
    static final Set<String> ROUTES = Set.of("automation", "task", "agent", CiRepairPlans.ROUTE);
    static final int MAX_NOTE = 2000;
    private static final int MAX_LIST = 200;
    private static final String COLUMNS = "run_id, project_id, project_path, provider, route, task_id, user_id, "
            + "run_status, status, files_added, files_modified, files_deleted, before_ref, after_ref, note, "
            + "decided_by, decided_at, created_at, ended_at, before_commit, after_commit, record_changed";

    private final Store store;
    private final Clock clock;
    private final Optional<VcsFactory> git;
    private final Predicate<Path> busy;

    public ReviewQueue(Store store, Clock clock, Optional<VcsFactory> git, Predicate<Path> busy) {
        this.store = store;
        this.clock = clock;
        this.git = git;
        this.busy = busy;
    }

    /** An item with the paths its run changed (at most the limit asked for). */
    public record Detail(ReviewItem item, TreeChanges changes) {
    }

    // ------------------------------------------------------------------ recording

    @Override
    public void starting(RunInfo run, RunOwner owner, Path workingDir) {
        // a run waits while a restore or revert of its working tree is writing (the tree's lock), then records
        WorkTreeLocks.with(workingDir, () -> {
            record(run, owner, workingDir);
            return null;
        });
    }

    private void record(RunInfo run, RunOwner owner, Path workingDir) {
        if (git.isEmpty()) {
            return;
        }
        String route = owner.origin();
        if (route == null || !ROUTES.contains(route) || !git.get().isRepository(workingDir)) {
            return;
        }
        String before = PREFIX + run.id() + "/before";
        Snapshot recorded;
        try (Vcs vcs = git.get().open(workingDir)) {
            recorded = vcs.snapshot(before, "Agent Workspace: working tree before run " + run.id());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "could not record the working tree before run " + run.id() + ": "
                    + e.getMessage());
            return;
        }
        try {
            store.write(h -> h.createUpdate("INSERT INTO agent_loop_reviews (run_id, project_id, project_path, "
                            + "provider, route, task_id, user_id, before_ref, before_commit, status, created_at) VALUES "
                            + "(:id, :p, :path, :prov, :route, :task, :user, :before, :commit, 'recording', :at)")
                    .bind("id", run.id()).bind("p", owner.project()).bind("path", WorkTreeLocks.real(workingDir).toString())
                    .bind("prov", run.provider()).bind("route", route).bind("task", owner.taskId())
                    .bind("user", owner.accountId()).bind("before", before).bind("commit", recorded.commit())
                    .bind("at", clock.millis()).execute());
        } catch (JdbiException e) {
            LOG.log(System.Logger.Level.WARNING, "could not store the review record of run " + run.id(), e);
        }
    }

    @Override
    public void ended(RunInfo run) {
        find(run.id()).filter(i -> i.status().equals("recording"))
                .ifPresent(i -> finish(i, BackgroundJobs.statusName(run.status())));
    }

    /** Finishes the items a previous process left recording (runs cut off by a restart). */
    public void recover() {
        recover(runId -> false);
    }

    /**
     * Finishes the items left recording whose run is no longer unfinished: with several nodes on one store, an item
     * whose run another node is still executing is that node's to finish when the run ends (docs/scale-out.md).
     */
    public void recover(Predicate<String> unfinished) {
        for (ReviewItem i : query("WHERE status = 'recording'", null)) {
            if (!unfinished.test(i.id())) {
                finish(i, "failed");
            }
        }
    }

    /**
     * Records the working tree after the run and compares it with the before record, by the commit ids the store
     * kept. A run that changed nothing leaves no item. Anything that makes the record doubtful keeps the item for
     * review with {@code record_changed} set: the before ref deleted or moved, the repository or folder gone, the
     * after snapshot failing. (The refs are in the repository the run worked in, so the run can touch them; a run
     * hiding its changes that way would otherwise drop out of the queue.)
     */
    private void finish(ReviewItem item, String runStatus) {
        String after = PREFIX + item.id() + "/after";
        long now = clock.millis();
        Integer added = null;
        Integer modified = null;
        Integer deleted = null;
        String status = "pending";
        String afterCommit = null;
        boolean changed = false;
        Path dir = Path.of(item.projectPath());
        if (git.isEmpty() || !Files.isDirectory(dir) || !git.get().isRepository(dir)) {
            changed = true;
        } else {
            try (Vcs vcs = git.get().open(dir)) {
                vcs.findSnapshot(after).ifPresent(s -> vcs.deleteSnapshot(after));
                afterCommit = vcs.snapshot(after, "Agent Workspace: working tree after run " + item.id()).commit();
                boolean intact = item.beforeCommit() == null || vcs.findSnapshot(item.beforeRef())
                        .map(s -> s.commit().equals(item.beforeCommit())).orElse(false);
                changed = !intact;
                TreeChanges c = vcs.changes(item.from(), afterCommit, Integer.MAX_VALUE);
                added = (int) c.count(TreeChange.Kind.ADDED);
                modified = (int) c.count(TreeChange.Kind.MODIFIED);
                deleted = (int) c.count(TreeChange.Kind.DELETED);
                if (c.total() == 0 && intact) {
                    status = "unchanged";
                    vcs.deleteSnapshot(after);
                    vcs.deleteSnapshot(item.beforeRef());
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "could not complete the record of run " + item.id()
                        + " (kept for review): " + e.getMessage());
                changed = true;
            }
        }
        if (changed) {
            LOG.log(System.Logger.Level.WARNING, "the record of run " + item.id() + " was changed or could not be "
                    + "completed: kept for review, revert refused");
        }
        String s = status;
        Integer a = added;
        Integer m = modified;
        Integer d = deleted;
        boolean kept = s.equals("pending");
        String ac = afterCommit;
        boolean rc = changed;
        try {
            store.write(h -> h.createUpdate("UPDATE agent_loop_reviews SET status = :s, after_ref = :after, "
                            + "after_commit = :ac, record_changed = :rc, run_status = :rs, files_added = :a, "
                            + "files_modified = :m, files_deleted = :d, ended_at = :at WHERE run_id = :id "
                            + "AND status = 'recording'")
                    .bind("s", s).bind("after", kept && ac != null ? after : null).bind("ac", kept ? ac : null)
                    .bind("rc", rc).bind("rs", runStatus).bind("a", a).bind("m", m).bind("d", d).bind("at", now)
                    .bind("id", item.id()).execute());
        } catch (JdbiException e) {
            LOG.log(System.Logger.Level.WARNING, "could not store the review record of run " + item.id(), e);
        }
    }

    // ------------------------------------------------------------------ reading and deciding

    /**
     * Items awaiting or having had a decision: pending first (oldest first, the order they should be reviewed in),
     * then decided ones, most recently decided first; at most 200.
     *
     * @param status {@code pending}, {@code approved}, {@code rejected}, or {@code null} for all three
     */
    public List<ReviewItem> list(String status, String projectId) {
        if (status != null && !Set.of("pending", "approved", "rejected").contains(status)) {
            throw WorkspaceException.Validation.of("status must be one of pending, approved, rejected");
        }
        String where = "WHERE " + (status == null ? "status IN ('pending', 'approved', 'rejected')"
                : "status = :status") + (projectId == null ? "" : " AND project_id = :project");
        return query(where + " ORDER BY CASE WHEN status = 'pending' THEN 0 ELSE 1 END, "
                + "CASE WHEN status = 'pending' THEN ended_at ELSE -decided_at END, run_id LIMIT " + MAX_LIST,
                q -> {
                    if (status != null) {
                        q.bind("status", status);
                    }
                    if (projectId != null) {
                        q.bind("project", projectId);
                    }
                });
    }

    /** A reviewable item (pending or decided) with up to {@code limit} changed paths. */
    public Detail detail(String id, int limit) {
        ReviewItem item = reviewable(id);
        TreeChanges changes = null;
        Path dir = Path.of(item.projectPath());
        if (git.isPresent() && item.to() != null && Files.isDirectory(dir) && git.get().isRepository(dir)) {
            try (Vcs vcs = git.get().open(dir)) {
                changes = vcs.changes(item.from(), item.to(), limit);
            } catch (WorkspaceException e) {
                LOG.log(System.Logger.Level.DEBUG, "no changes for review item " + id + ": " + e.getMessage());
            }
        }
        return new Detail(item, changes);
    }

    /**
     * The unified diff of what the item's run changed (git's format, cut at the configured size).
     *
     * @throws WorkspaceException.NotFound   {@code REVIEW_ITEM_NOT_FOUND}
     * @throws WorkspaceException.Conflict   {@code NOT_A_GIT_REPOSITORY} when the folder is gone or no repository
     */
    public org.agentworkspace.api.vcs.DiffResult diff(String id) {
        ReviewItem item = reviewable(id);
        Path dir = Path.of(item.projectPath());
        if (git.isEmpty() || !Files.isDirectory(dir) || !git.get().isRepository(dir)) {
            throw new WorkspaceException.Conflict(org.agentworkspace.api.vcs.VcsErrorCodes.NOT_A_GIT_REPOSITORY,
                    "the run's folder is no longer a git working tree");
        }
        if (item.to() == null) {
            throw recordGone("the record of the files after the run is missing");
        }
        try (Vcs vcs = git.get().open(dir)) {
            return vcs.diff(item.from(), item.to());
        } catch (WorkspaceException.NotFound e) {
            throw recordGone("the recorded files are no longer in the repository (removed by git gc?)");
        }
    }

    /**
     * Approves or rejects a pending item.
     *
     * @param revert (reject only) put the files back as they were before the run
     * @param force  (with revert) even when changes made since would be lost
     * @throws WorkspaceException.NotFound {@code REVIEW_ITEM_NOT_FOUND}
     * @throws WorkspaceException.Conflict {@code REVIEW_ALREADY_DECIDED}, {@code WOULD_LOSE_CHANGES},
     *                                     {@code PROJECT_BUSY}
     */
    public Decided decide(String id, boolean approve, String note, String decidedBy, boolean revert, boolean force) {
        if (!revert) {
            return decideNow(id, approve, note, decidedBy, false, force);
        }
        // a revert holds the tree's lock from its checks to the decision: a second reject waits, then finds it decided
        return WorkTreeLocks.with(Path.of(reviewable(id).projectPath()),
                () -> decideNow(id, approve, note, decidedBy, true, force));
    }

    private Decided decideNow(String id, boolean approve, String note, String decidedBy, boolean revert,
                              boolean force) {
        String cleanNote = note == null || note.isBlank() ? null : note.strip();
        if (cleanNote != null && cleanNote.length() > MAX_NOTE) {
            throw WorkspaceException.Validation.of("note must be at most " + MAX_NOTE + " characters");
        }
        if (approve && (revert || force)) {
            throw WorkspaceException.Validation.of("revert and force belong to a rejection");
        }
        ReviewItem item = reviewable(id);
        if (!item.status().equals("pending")) {
            throw alreadyDecided(item);
        }
        RestoreResult reverted = null;
        if (revert) {
            Path dir = Path.of(item.projectPath());
            if (busy.test(dir)) {
                throw new WorkspaceException.Conflict(LoopErrorCodes.PROJECT_BUSY, "a run is queued or running in "
                        + "the project; cancel it or wait for it to end before reverting");
            }
            if (git.isEmpty() || !Files.isDirectory(dir) || !git.get().isRepository(dir)) {
                throw new WorkspaceException.Conflict(org.agentworkspace.api.vcs.VcsErrorCodes.NOT_A_GIT_REPOSITORY,
                        "the run's folder is no longer a git working tree");
            }
            try (Vcs vcs = git.get().open(dir)) {
                Snapshot before = vcs.findSnapshot(item.beforeRef())
                        .filter(b -> !item.recordChanged() && b.commit().equals(item.beforeCommit()))
                        .orElseThrow(() -> new WorkspaceException.Conflict(LoopErrorCodes.REVIEW_RECORD_CHANGED,
                                "the record of the files before the run was deleted or moved after it was made; "
                                        + "they are not put back from it (reject without revert, and look at the "
                                        + "files by hand)"));
                WorkingTreeState now = vcs.workingTree();
                if (!now.tree().equals(before.tree()) && !now.clean() && !Checkpoints.keptBySnapshot(vcs, now.tree(),
                        Checkpoints.trustedCommits(store, WorkTreeLocks.real(dir).toString()))
                        && !force) {
                    throw new WorkspaceException.Conflict(LoopErrorCodes.WOULD_LOSE_CHANGES, "the working tree has "
                            + "changes made after the run that are neither committed nor in a checkpoint; create a "
                            + "checkpoint first, or reject with force");
                }
                reverted = now.tree().equals(before.tree()) ? new RestoreResult(0, 0)
                        : vcs.restoreSnapshot(item.beforeRef());
            }
        }
        String status = approve ? "approved" : "rejected";
        int n;
        try {
            n = store.write(h -> h.createUpdate("UPDATE agent_loop_reviews SET status = :s, note = :note, "
                            + "decided_by = :by, decided_at = :at WHERE run_id = :id AND status = 'pending'")
                    .bind("s", status).bind("note", cleanNote).bind("by", decidedBy).bind("at", clock.millis())
                    .bind("id", id).execute());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        ReviewItem now = find(id).orElseThrow(ReviewQueue::notFound);
        if (n == 0) {
            throw alreadyDecided(now);
        }
        return new Decided(now, reverted);
    }

    /** A decided item, and what a revert changed ({@code null} without one). */
    public record Decided(ReviewItem item, RestoreResult reverted) {
    }

    public Optional<ReviewItem> find(String id) {
        if (id == null || id.isBlank() || id.length() > 64) {
            return Optional.empty();
        }
        return query("WHERE run_id = :id", q -> q.bind("id", id)).stream().findFirst();
    }

    private ReviewItem reviewable(String id) {
        ReviewItem item = find(id).orElseThrow(ReviewQueue::notFound);
        if (!Set.of("pending", "approved", "rejected").contains(item.status())) {
            throw notFound();
        }
        return item;
    }

    private static WorkspaceException recordGone(String why) {
        return new WorkspaceException.Conflict(LoopErrorCodes.REVIEW_RECORD_CHANGED, why);
    }

    private static WorkspaceException notFound() {
        return new WorkspaceException.NotFound(LoopErrorCodes.REVIEW_ITEM_NOT_FOUND, "no such review item");
    }

    private static WorkspaceException alreadyDecided(ReviewItem item) {
        return new WorkspaceException.Conflict(LoopErrorCodes.REVIEW_ALREADY_DECIDED, "the item was "
                + item.status() + " already" + (item.decidedBy() == null ? "" : " by " + item.decidedBy()));
    }

    private List<ReviewItem> query(String tail, java.util.function.Consumer<org.jdbi.v3.core.statement.Query> bind) {
        try {
            return store.read(h -> {
                var q = h.createQuery("SELECT " + COLUMNS + " FROM agent_loop_reviews " + tail);
                if (bind != null) {
                    bind.accept(q);
                }
                return q.map((rs, ctx) -> row(rs)).list();
            });
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    private static ReviewItem row(ResultSet rs) throws SQLException {
        return new ReviewItem(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), nullableLong(rs, 7), rs.getString(8), rs.getString(9), nullableInt(rs, 10),
                nullableInt(rs, 11), nullableInt(rs, 12), rs.getString(13), rs.getString(14), rs.getString(15),
                rs.getString(16), instant(rs, 17), instant(rs, 18), instant(rs, 19), rs.getString(20),
                rs.getString(21), rs.getBoolean(22));
    }

    private static Long nullableLong(ResultSet rs, int i) throws SQLException {
        long v = rs.getLong(i);
        return rs.wasNull() ? null : v;
    }

    private static Integer nullableInt(ResultSet rs, int i) throws SQLException {
        int v = rs.getInt(i);
        return rs.wasNull() ? null : v;
    }

    private static Instant instant(ResultSet rs, int i) throws SQLException {
        long v = rs.getLong(i);
        return rs.wasNull() ? null : Instant.ofEpochMilli(v);
    }
}
