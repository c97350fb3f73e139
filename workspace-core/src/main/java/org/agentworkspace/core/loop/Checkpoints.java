package org.agentworkspace.core.loop;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.vcs.RestoreResult;
import org.agentworkspace.api.vcs.Snapshot;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsOptions;
import org.agentworkspace.api.vcs.WorkingTreeState;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.store.Store;

/**
 * Workspace checkpoints: a registered project's working tree (tracked and untracked files, not ignored ones)
 * recorded as a commit on {@code refs/agent-workspace/checkpoints/<id>}, its parent HEAD's commit. Creating one
 * touches neither the index, nor HEAD, nor a file; the label and creator are kept in the commit message. The store
 * keeps each checkpoint's id, working tree (real path) and commit: only those are listed, read and restored, and
 * only while their ref still names that commit — the refs live in a repository a run can write, so a ref made or
 * moved there (a forged "checkpoint" holding a run's changes) is never offered. Restoring makes the files equal to
 * the checkpoint's and is refused ({@code WOULD_LOSE_CHANGES}) when the working tree holds changes that are neither
 * committed (equal to HEAD) nor kept by a checkpoint or run record the store knows, unless forced.
 */
public final class Checkpoints {
    public static final String PREFIX = Vcs.SNAPSHOT_REFS + "checkpoints/";
    static final int MAX_LABEL = 200;
    private static final Pattern ID = Pattern.compile("cp_[0-9a-z]{12}");
    private static final String ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
    private static final String TITLE = "Agent Workspace checkpoint";

    private final Store store;
    private final java.time.Clock clock;
    private final ProjectRegistry projects;
    private final Predicate<Path> busy;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param busy tells whether a run is queued or running in a project folder (restores wait for it to end)
     */
    public Checkpoints(Store store, java.time.Clock clock, ProjectRegistry projects, Predicate<Path> busy) {
        this.store = store;
        this.clock = clock;
        this.projects = projects;
        this.busy = busy;
    }

    /** The result of a restore: the checkpoint and what changed in the working tree. */
    public record Restored(Checkpoint checkpoint, int written, int deleted, boolean forced) {
    }

    /**
     * Records the project's working tree.
     *
     * @throws WorkspaceException.NotFound   {@code PROJECT_NOT_FOUND}
     * @throws WorkspaceException.Conflict   {@code NOT_A_GIT_REPOSITORY}
     * @throws WorkspaceException.Validation a label that is too long or holds control characters
     */
    public Checkpoint create(String projectId, String label, String createdBy) {
        String clean = checkLabel(label);
        String id = newId();
        StringBuilder message = new StringBuilder(TITLE).append("\n\n");
        if (clean != null) {
            message.append("label: ").append(clean).append('\n');
        }
        if (createdBy != null) {
            message.append("created-by: ").append(createdBy.replaceAll("[\\p{Cntrl}]", "")).append('\n');
        }
        try (Vcs git = open(projectId)) {
            Snapshot s = git.snapshot(PREFIX + id, message.toString());
            String path = treePath(projectId);
            store.write(h -> h.createUpdate("INSERT INTO agent_loop_checkpoints (id, project_path, commit_id, tree_id, "
                            + "created_at) VALUES (:id, :p, :c, :t, :at)").bind("id", id).bind("p", path)
                    .bind("c", s.commit()).bind("t", s.tree()).bind("at", clock.millis()).execute());
            return of(projectId, s);
        }
    }

    /** The checkpoints the store knows for this working tree: id to commit. */
    private java.util.Map<String, String> recorded(String projectId) {
        String path = treePath(projectId);
        return store.read(h -> h.createQuery("SELECT id, commit_id FROM agent_loop_checkpoints WHERE project_path = :p")
                .bind("p", path).map((rs, ctx) -> java.util.Map.entry(rs.getString(1), rs.getString(2))).list())
                .stream().collect(java.util.stream.Collectors.toMap(java.util.Map.Entry::getKey,
                        java.util.Map.Entry::getValue));
    }

    private String treePath(String projectId) {
        return WorkTreeLocks.real(Path.of(projects.get(projectId).path())).toString();
    }

    /** The project's checkpoints, newest first. */
    public List<Checkpoint> list(String projectId) {
        java.util.Map<String, String> known = recorded(projectId);
        try (Vcs git = open(projectId)) {
            List<Checkpoint> out = new ArrayList<>();
            for (Snapshot s : git.snapshots(PREFIX)) {
                Checkpoint c = of(projectId, s);
                if (ID.matcher(c.id()).matches() && s.commit().equals(known.get(c.id()))) {
                    out.add(c);
                }
            }
            return out;
        }
    }

    public Checkpoint get(String projectId, String id) {
        try (Vcs git = open(projectId)) {
            return find(git, projectId, id);
        }
    }

    /**
     * Puts the checkpoint's files back.
     *
     * @param force restore even when uncommitted changes that no snapshot keeps would be lost
     * @throws WorkspaceException.NotFound {@code CHECKPOINT_NOT_FOUND}
     * @throws WorkspaceException.Conflict {@code WOULD_LOSE_CHANGES}, {@code PROJECT_BUSY}
     */
    public Restored restore(String projectId, String id, boolean force) {
        Path dir = Path.of(projects.get(projectId).path());
        return WorkTreeLocks.with(dir, () -> restoreLocked(projectId, dir, id, force));
    }

    private Restored restoreLocked(String projectId, Path dir, String id, boolean force) {
        if (busy.test(dir)) {
            throw new WorkspaceException.Conflict(LoopErrorCodes.PROJECT_BUSY, "a run is queued or running in the "
                    + "project; cancel it or wait for it to end before restoring");
        }
        try (Vcs git = open(projectId)) {
            Checkpoint c = find(git, projectId, id);
            boolean forced = false;
            WorkingTreeState now = git.workingTree();
            if (now.tree().equals(c.tree())) {
                return new Restored(c, 0, 0, false);
            }
            if (!now.clean() && !keptBySnapshot(git, now.tree(), trustedCommits(store, treePath(projectId)))) {
                if (!force) {
                    throw new WorkspaceException.Conflict(LoopErrorCodes.WOULD_LOSE_CHANGES, "the working tree has "
                            + "changes that are neither committed nor in a checkpoint; create a checkpoint first, "
                            + "or restore with force");
                }
                forced = true;
            }
            RestoreResult r = git.restoreSnapshot(c.ref());
            return new Restored(c, r.written(), r.deleted(), forced);
        }
    }

    /** Removes the checkpoint's ref (the objects go with git's next garbage collection). */
    public void delete(String projectId, String id) {
        try (Vcs git = open(projectId)) {
            Checkpoint c = find(git, projectId, id);
            git.deleteSnapshot(c.ref());
            store.write(h -> h.createUpdate("DELETE FROM agent_loop_checkpoints WHERE id = :id").bind("id", c.id())
                    .execute());
        }
    }

    /**
     * True when a snapshot the store knows (a checkpoint, a run's record: {@code trusted} holds their commits) has
     * this tree and its ref still names it; a ref some run wrote does not count.
     */
    static boolean keptBySnapshot(Vcs git, String tree, java.util.Set<String> trusted) {
        return git.snapshots(Vcs.SNAPSHOT_REFS).stream()
                .anyMatch(s -> s.tree().equals(tree) && trusted.contains(s.commit()));
    }

    /** The commits of the checkpoints and run records the store holds for a working tree (by real path). */
    static java.util.Set<String> trustedCommits(Store store, String realPath) {
        return store.read(h -> {
            java.util.Set<String> out = new java.util.HashSet<>(h.createQuery("SELECT commit_id FROM "
                    + "agent_loop_checkpoints WHERE project_path = :p").bind("p", realPath).mapTo(String.class).list());
            // (review rows hold the run's folder as its real path)
            h.createQuery("SELECT before_commit, after_commit FROM agent_loop_reviews WHERE project_path = :p "
                            + "AND before_commit IS NOT NULL AND record_changed = :f")
                    .bind("p", realPath).bind("f", false)
                    .map((rs, ctx) -> new String[] {rs.getString(1), rs.getString(2)}).list()
                    .forEach(r -> {
                        out.add(r[0]);
                        if (r[1] != null) {
                            out.add(r[1]);
                        }
                    });
            return out;
        });
    }

    private Checkpoint find(Vcs git, String projectId, String id) {
        if (id == null || !ID.matcher(id).matches()) {
            throw notFound();
        }
        String commit = recorded(projectId).get(id);
        return git.findSnapshot(PREFIX + id).filter(s -> s.commit().equals(commit)).map(s -> of(projectId, s))
                .orElseThrow(Checkpoints::notFound);
    }

    private Vcs open(String projectId) {
        return projects.git(projectId, VcsOptions.defaults());
    }

    private static WorkspaceException notFound() {
        return new WorkspaceException.NotFound(LoopErrorCodes.CHECKPOINT_NOT_FOUND, "no such checkpoint");
    }

    static String checkLabel(String label) {
        if (label == null || label.isBlank()) {
            return null;
        }
        String s = label.strip();
        if (s.length() > MAX_LABEL) {
            throw WorkspaceException.Validation.of("label must be at most " + MAX_LABEL + " characters");
        }
        if (s.chars().anyMatch(c -> Character.isISOControl(c) || isLineOrDirection(c))) {
            throw WorkspaceException.Validation.of("label must be one line without control characters");
        }
        return s;
    }

    /**
     * Unicode line and paragraph separators, and the direction overrides and isolates (U+202A-U+202E,
     * U+2066-U+2069) that make a text read differently from what it holds: not in a one-line label.
     */
    static boolean isLineOrDirection(int c) {
        return c == 0x2028 || c == 0x2029 || c >= 0x202A && c <= 0x202E || c >= 0x2066 && c <= 0x2069;
    }

    private static Checkpoint of(String projectId, Snapshot s) {
        String label = null;
        String by = null;
        for (String line : s.message().split("\n")) {
            if (line.startsWith("label: ")) {
                label = line.substring(7);
            } else if (line.startsWith("created-by: ")) {
                by = line.substring(12);
            }
        }
        return new Checkpoint(s.ref().substring(PREFIX.length()), projectId, label, s.ref(), s.commit(), s.tree(),
                s.createdAt(), by);
    }

    private String newId() {
        StringBuilder b = new StringBuilder("cp_");
        for (int i = 0; i < 12; i++) {
            b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }

    static Optional<String> nonBlank(String s) {
        return s == null || s.isBlank() ? Optional.empty() : Optional.of(s);
    }
}
