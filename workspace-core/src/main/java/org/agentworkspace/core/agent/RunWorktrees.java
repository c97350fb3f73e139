package org.agentworkspace.core.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.process.Spawner;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunObserver;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.JdbiException;

/**
 * Worktree isolation (docs/runs.md "Worktree isolation"): a run of its own git worktree outside the project, under
 * {@code <data>/worktrees/<id>}, on its own branch {@code aw/run-<runId>}. The row is stored before
 * {@code git worktree add} runs; the branch is made when the run's process is about to start (the run id is known
 * then); when the run ends its changes are committed on the branch as its account and the folder is removed unless
 * the caller kept it. The project's own working tree is touched only by an explicit merge, which is checked for
 * conflicts first without touching any tree. Git runs as the {@code git} binary with argv lists through the one
 * process-spawning component, with hooks, signing and the system/global configuration off.
 */
public final class RunWorktrees implements RunObserver {
    /** 400: {@code isolation: worktree} for a project that is not a git repository (or has no commit yet). */
    public static final String WORKTREE_NEEDS_GIT_REPOSITORY = "WORKTREE_NEEDS_GIT_REPOSITORY";
    /** 400: {@code isolation: docker} without an image an administrator configured (none can be configured yet). */
    public static final String ISOLATION_UNAVAILABLE = "ISOLATION_UNAVAILABLE";
    /** 409: merging the run's branch would conflict; the message names the files; no tree was touched. */
    public static final String MERGE_CONFLICT = "MERGE_CONFLICT";
    /** 409: the merge or discard cannot happen in this state (run not ended, already merged/discarded, …). */
    public static final String WORKTREE_STATE = "WORKTREE_STATE";
    /** 404: the run was not started with {@code isolation: worktree}. */
    public static final String WORKTREE_NOT_FOUND = "WORKTREE_NOT_FOUND";
    /** 500/503: a git command failed. */
    public static final String WORKTREE_GIT_FAILED = "WORKTREE_GIT_FAILED";

    /** How long an ended run's kept worktree folder stays before the sweep removes it (its branch stays). */
    public static final Duration DEFAULT_MAX_AGE = Duration.ofDays(7);

    private static final System.Logger LOG = System.getLogger(RunWorktrees.class.getName());
    private static final String COLUMNS = "id, run_id, account_id, project, project_dir, branch, path, state, "
            + "keep_worktree, base_commit, head_commit, note, created_at, updated_at";
    private static final Duration GIT_TIMEOUT = Duration.ofMinutes(2);
    private static final String ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

    /** One isolated run's worktree as stored. */
    public record Worktree(String id, String runId, Long accountId, String project, String projectDir, String branch,
                           String path, String state, boolean keep, String baseCommit, String headCommit, String note,
                           Instant createdAt, Instant updatedAt) {
    }

    /** What a merge did. */
    public record Merged(Worktree worktree, String intoBranch, String mergeCommit) {
    }

    private final Store store;
    private final Path root;
    private final RunEngine engine;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private Thread sweeper;

    RunWorktrees(Store store, Path root, RunEngine engine, Clock clock) {
        this.store = Objects.requireNonNull(store);
        this.root = root.toAbsolutePath().normalize();
        this.engine = Objects.requireNonNull(engine);
        this.clock = Objects.requireNonNull(clock);
    }

    /** Worktrees under {@code root} (the engine uses {@code <data>/worktrees}); observes {@code engine}'s runs. */
    public static RunWorktrees create(Store store, Path root, RunEngine engine, Clock clock) {
        RunWorktrees w = new RunWorktrees(store, root, engine, clock);
        engine.observe(w);
        return w;
    }

    public Path root() {
        return root;
    }

    // ------------------------------------------------------------------ creating

    /**
     * The commit a worktree of {@code projectDir} would start from; 400 {@link #WORKTREE_NEEDS_GIT_REPOSITORY} when the
     * folder is not a git repository with at least one commit (checked when a run starts, and when a task that will
     * start worktree runs is created or changed).
     */
    public String requireRepository(Path projectDir) {
        Git.Result top = git(projectDir, "rev-parse", "--show-toplevel");
        Git.Result head = top.ok() ? git(projectDir, "rev-parse", "--verify", "-q", "HEAD^{commit}") : top;
        if (!top.ok() || !head.ok()) {
            throw new WorkspaceException.Validation(WORKTREE_NEEDS_GIT_REPOSITORY, "isolation 'worktree' needs the project to "
                    + "be a git repository with at least one commit; use isolation 'host' or initialise it");
        }
        return head.out().strip();
    }

    /**
     * Stores the row, then adds a detached worktree of {@code projectDir}'s {@code HEAD} under the root.
     *
     * @throws WorkspaceException.Validation {@link #WORKTREE_NEEDS_GIT_REPOSITORY}
     */
    public Worktree prepare(Path projectDir, String project, Long accountId, boolean keep) {
        String base = requireRepository(projectDir);
        String id = newId();
        Path path = root.resolve(id);
        long now = clock.millis();
        try {
            Files.createDirectories(root);
            store.write(h -> h.createUpdate("INSERT INTO run_worktrees (" + COLUMNS + ") VALUES (:id, NULL, :acc, "
                            + ":project, :dir, NULL, :path, 'creating', :keep, :base, NULL, NULL, :at, :at)")
                    .bind("id", id).bind("acc", accountId).bind("project", project)
                    .bind("dir", projectDir.toString()).bind("path", path.toString()).bind("keep", keep ? 1 : 0)
                    .bind("base", base).bind("at", now).execute());
        } catch (IOException e) {
            throw new WorkspaceException.Unavailable(WORKTREE_GIT_FAILED, "could not create the worktree folder", e);
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        Git.Result add = git(projectDir, "worktree", "add", "--detach", "-q", "--", path.toString(), base);
        if (!add.ok()) {
            setState(id, "failed", add.err());
            throw new WorkspaceException.Unavailable(WORKTREE_GIT_FAILED, "git worktree add failed: " + firstLine(add.err()),
                    null);
        }
        setState(id, "ready", null);
        return find(id).orElseThrow();
    }

    /** Links the row to the run that works in it (the observer may have done so already). */
    public void attach(String worktreeId, String runId) {
        update("UPDATE run_worktrees SET run_id = :run, updated_at = :at WHERE id = :id AND run_id IS NULL",
                Map.of("run", runId, "id", worktreeId));
    }

    /** A worktree whose run could not be started: folder and row go. */
    public void abandon(Worktree w) {
        git(Path.of(w.projectDir()), "worktree", "remove", "--force", "--", w.path());
        setState(w.id(), "discarded", "the run could not be started");
    }

    // ------------------------------------------------------------------ the run's life

    @Override
    public void starting(RunInfo run, Path workingDir) {
        Path dir = workingDir.toAbsolutePath().normalize();
        if (!dir.startsWith(root)) {
            return;
        }
        Optional<Worktree> w = byPath(dir.toString());
        if (w.isEmpty()) {
            return;
        }
        String branch = "aw/run-" + run.id();
        Git.Result r = git(dir, "checkout", "-q", "-b", branch);
        if (!r.ok()) {
            LOG.log(System.Logger.Level.WARNING, "could not create branch " + branch + ": " + firstLine(r.err()));
            update("UPDATE run_worktrees SET run_id = :run, state = 'running', note = :note, updated_at = :at "
                    + "WHERE id = :id", Map.of("run", run.id(), "id", w.get().id(), "note", "no branch: "
                    + firstLine(r.err())));
            return;
        }
        update("UPDATE run_worktrees SET run_id = :run, branch = :branch, state = 'running', updated_at = :at "
                + "WHERE id = :id", Map.of("run", run.id(), "branch", branch, "id", w.get().id()));
    }

    @Override
    public void ended(RunInfo run) {
        byRun(run.id()).filter(w -> w.state().equals("ready") || w.state().equals("running")).ifPresent(this::finish);
    }

    /** Commits what the run left on its branch (as its account), then removes the folder unless kept. */
    synchronized void finish(Worktree w) {
        Path dir = Path.of(w.path());
        if (w.branch() == null || !Files.isDirectory(dir)) {
            // never started (cancelled while queued, or the branch could not be made): nothing to keep
            git(Path.of(w.projectDir()), "worktree", "remove", "--force", "--", w.path());
            setState(w.id(), "discarded", "the run never worked in it");
            return;
        }
        String head = null;
        String note = null;
        Git.Result add = git(dir, "add", "-A");
        if (add.ok() && git(dir, "diff", "--cached", "--quiet").exit() == 1) {
            String name = accountName(w.accountId());
            Git.Result c = gitAs(dir, name, List.of("commit", "-q", "--no-verify", "-m",
                    "Agent Workspace run " + w.runId()));
            if (!c.ok()) {
                note = "commit failed: " + firstLine(c.err());
            }
        } else if (!add.ok()) {
            note = "git add failed: " + firstLine(add.err());
        }
        Git.Result h = git(dir, "rev-parse", "HEAD");
        if (h.ok()) {
            head = h.out().strip();
        }
        // the state changes once, after the folder's fate is known: a reader never sees 'ended' for a run whose
        // folder is about to go
        update("UPDATE run_worktrees SET head_commit = :head, note = :note, updated_at = :at WHERE id = :id",
                nullable("head", head, "note", note, "id", w.id()));
        if (w.keep() || note != null || !removeFolder(find(w.id()).orElseThrow(), false)) {
            update("UPDATE run_worktrees SET state = 'ended', updated_at = :at WHERE id = :id", Map.of("id", w.id()));
        }
    }

    /** Removes the folder (never a dirty one unless {@code force}); the branch stays. */
    private boolean removeFolder(Worktree w, boolean force) {
        if (!Files.exists(Path.of(w.path()))) {
            git(Path.of(w.projectDir()), "worktree", "prune");
            setState(w.id(), "removed", null);
            return true;
        }
        List<String> argv = new ArrayList<>(List.of("worktree", "remove"));
        if (force) {
            argv.add("--force");
        }
        argv.add("--");
        argv.add(w.path());
        Git.Result r = git(Path.of(w.projectDir()), argv.toArray(String[]::new));
        if (r.ok()) {
            setState(w.id(), "removed", null);
            return true;
        }
        update("UPDATE run_worktrees SET note = :note, updated_at = :at WHERE id = :id",
                Map.of("note", "kept: " + firstLine(r.err()), "id", w.id()));
        return false;
    }

    // ------------------------------------------------------------------ merge and discard

    /**
     * Merges the run's branch into the branch checked out in the project. Checked first with
     * {@code git merge-tree} (no tree is touched): a conflict is 409 {@link #MERGE_CONFLICT} naming the files.
     */
    public synchronized Merged merge(String runId, String accountName) {
        Worktree w = ended(runId);
        if (!w.state().equals("ended") && !w.state().equals("removed")) {
            throw new WorkspaceException.Conflict(WORKTREE_STATE, "the run's branch was " + w.state() + " already");
        }
        if (w.branch() == null) {
            throw new WorkspaceException.Conflict(WORKTREE_STATE, "the run has no branch to merge");
        }
        Path project = Path.of(w.projectDir());
        Git.Result current = git(project, "symbolic-ref", "-q", "--short", "HEAD");
        if (!current.ok()) {
            throw new WorkspaceException.Conflict(WORKTREE_STATE, "the project has no branch checked out "
                    + "(detached HEAD); check one out and merge again");
        }
        String into = current.out().strip();
        Git.Result check = git(project, "merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD",
                w.branch());
        if (check.exit() == 1) {
            List<String> files = check.out().lines().skip(1).filter(s -> !s.isBlank()).distinct().toList();
            throw new WorkspaceException.Conflict(MERGE_CONFLICT, "merging " + w.branch() + " into " + into
                    + " conflicts in: " + String.join(", ", files) + "; nothing was changed");
        }
        if (!check.ok()) {
            throw new WorkspaceException.Unavailable(WORKTREE_GIT_FAILED, "git merge-tree failed: " + firstLine(check.err()),
                    null);
        }
        Git.Result m = gitAs(project, accountName, List.of("merge", "-q", "--no-ff", "--no-edit", "-m",
                "Merge run " + w.runId() + " (" + w.branch() + ")", w.branch()));
        if (!m.ok()) {
            if (Files.exists(gitPath(project, "MERGE_HEAD"))) {
                git(project, "merge", "--abort");
            }
            throw new WorkspaceException.Conflict(MERGE_CONFLICT, "git refused the merge and left the project as it "
                    + "was: " + firstLine(m.err().isBlank() ? m.out() : m.err()));
        }
        String commit = git(project, "rev-parse", "HEAD").out().strip();
        if (Files.exists(Path.of(w.path()))) {
            removeFolder(w, false);
        }
        git(project, "branch", "-q", "-d", "--", w.branch());
        update("UPDATE run_worktrees SET state = 'merged', note = :note, updated_at = :at WHERE id = :id",
                Map.of("note", "merged into " + into + " as " + commit, "id", w.id()));
        return new Merged(find(w.id()).orElseThrow(), into, commit);
    }

    /** Deletes the run's branch and worktree folder (an explicit discard: a dirty folder goes too). */
    public synchronized Worktree discard(String runId) {
        Worktree w = ended(runId);
        if (w.state().equals("merged") || w.state().equals("discarded")) {
            throw new WorkspaceException.Conflict(WORKTREE_STATE, "the run's branch was " + w.state() + " already");
        }
        Path project = Path.of(w.projectDir());
        if (Files.exists(Path.of(w.path()))) {
            Git.Result r = git(project, "worktree", "remove", "--force", "--", w.path());
            if (!r.ok()) {
                throw new WorkspaceException.Unavailable(WORKTREE_GIT_FAILED, "git worktree remove failed: "
                        + firstLine(r.err()), null);
            }
        }
        if (w.branch() != null) {
            git(project, "branch", "-q", "-D", "--", w.branch());
        }
        setState(w.id(), "discarded", "discarded");
        return find(w.id()).orElseThrow();
    }

    private Worktree ended(String runId) {
        Worktree w = byRun(runId).orElseThrow(() -> new WorkspaceException.NotFound(WORKTREE_NOT_FOUND,
                "the run was not started with isolation 'worktree'"));
        if (w.state().equals("creating") || w.state().equals("ready") || w.state().equals("running")) {
            throw new WorkspaceException.Conflict(WORKTREE_STATE, "the run has not ended yet");
        }
        return w;
    }

    // ------------------------------------------------------------------ sweep

    /**
     * Removes (never by force) the folders of ended runs older than {@code maxAge}, finishes worktrees whose run
     * ended while no observer saw it (a restart), and removes clean folders under the root that no row names.
     *
     * @return how many folders were removed
     */
    public synchronized int sweep(Duration maxAge) {
        int removed = 0;
        long cutoff = clock.millis() - maxAge.toMillis();
        for (Worktree w : query("WHERE state IN ('creating', 'ready', 'running', 'ended')", Map.of())) {
            Optional<RunInfo> run = w.runId() == null ? Optional.empty() : engine.find(w.runId());
            switch (w.state()) {
                case "ready", "running" -> {
                    if (run.isEmpty() ? w.updatedAt().toEpochMilli() < cutoff : run.get().status().terminal()) {
                        finish(w);
                    }
                }
                case "creating" -> {
                    if (w.createdAt().toEpochMilli() < clock.millis() - Duration.ofHours(1).toMillis()) {
                        git(Path.of(w.projectDir()), "worktree", "remove", "--force", "--", w.path());
                        setState(w.id(), "failed", "never finished creating");
                    }
                }
                default -> {
                    // ended: past the age, or its run is gone (an orphan)
                    if (Files.exists(Path.of(w.path()))
                            && (w.updatedAt().toEpochMilli() < cutoff || (w.runId() != null && run.isEmpty()))
                            && removeFolder(w, false)) {
                        removed++;
                    }
                }
            }
        }
        if (Files.isDirectory(root)) {
            List<Path> dirs;
            try (Stream<Path> s = Files.list(root)) {
                dirs = s.filter(Files::isDirectory).toList();
            } catch (IOException e) {
                dirs = List.of();
            }
            for (Path d : dirs) {
                if (byPath(d.toString()).isPresent()) {
                    continue;
                }
                Git.Result st = git(d, "status", "--porcelain");
                if (st.ok() && st.out().isBlank()) {
                    deleteTree(d);
                    removed++;
                }
            }
        }
        return removed;
    }

    /** Sweeps now and every {@code every}, on a virtual thread (start-up never waits for it). */
    public synchronized void startSweeper(Duration maxAge, Duration every) {
        if (sweeper != null) {
            return;
        }
        sweeper = Thread.ofVirtual().name("worktree-sweep").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    sweep(maxAge);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "worktree sweep failed: " + e.getMessage());
                }
                try {
                    Thread.sleep(every);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /** Stops the sweeper and the observing (the engine calls this when it closes). */
    public void close() {
        engine.unobserve(this);
        Thread t;
        synchronized (this) {
            t = sweeper;
            sweeper = null;
        }
        if (t != null) {
            t.interrupt();
        }
    }

    // ------------------------------------------------------------------ reads

    public Optional<Worktree> byRun(String runId) {
        return query("WHERE run_id = :v", Map.of("v", runId)).stream().findFirst();
    }

    private Optional<Worktree> byPath(String path) {
        return query("WHERE path = :v", Map.of("v", path)).stream().findFirst();
    }

    public Optional<Worktree> find(String id) {
        return query("WHERE id = :v", Map.of("v", id)).stream().findFirst();
    }

    private List<Worktree> query(String tail, Map<String, Object> binds) {
        try {
            return store.read(h -> {
                var q = h.createQuery("SELECT " + COLUMNS + " FROM run_worktrees " + tail + " ORDER BY created_at");
                binds.forEach(q::bind);
                return q.map((rs, ctx) -> row(rs)).list();
            });
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    private static Worktree row(ResultSet rs) throws SQLException {
        long acc = rs.getLong(3);
        Long account = rs.wasNull() ? null : acc;
        return new Worktree(rs.getString(1), rs.getString(2), account, rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8), rs.getInt(9) != 0, rs.getString(10),
                rs.getString(11), rs.getString(12), Instant.ofEpochMilli(rs.getLong(13)),
                Instant.ofEpochMilli(rs.getLong(14)));
    }

    private void setState(String id, String state, String note) {
        update("UPDATE run_worktrees SET state = :state, note = :note, updated_at = :at WHERE id = :id",
                nullable("state", state, "note", note, "id", id));
    }

    private void update(String sql, Map<String, Object> binds) {
        long now = clock.millis();
        try {
            store.write(h -> {
                var u = h.createUpdate(sql).bind("at", now);
                binds.forEach(u::bind);
                return u.execute();
            });
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    private static Map<String, Object> nullable(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private String accountName(Long accountId) {
        if (accountId == null) {
            return "Agent Workspace";
        }
        try {
            return store.read(h -> h.createQuery("SELECT username FROM users WHERE id = :id").bind("id", accountId)
                    .mapTo(String.class).findOne()).orElse("account " + accountId);
        } catch (JdbiException e) {
            return "account " + accountId;
        }
    }

    private String newId() {
        StringBuilder b = new StringBuilder("wt_");
        for (int i = 0; i < 20; i++) {
            b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }

    private static Path gitPath(Path project, String name) {
        Git.Result r = git(project, "rev-parse", "--git-path", name);
        Path p = Path.of(r.out().strip());
        return p.isAbsolute() ? p : project.resolve(p);
    }

    private static void deleteTree(Path d) {
        try (Stream<Path> s = Files.walk(d)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not remove orphan worktree folder " + d + ": " + e);
        }
    }

    private static String firstLine(String s) {
        String t = s == null ? "" : s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    // ------------------------------------------------------------------ git

    private static Git.Result git(Path dir, String... args) {
        return Git.run(dir, null, List.of(args));
    }

    private static Git.Result gitAs(Path dir, String name, List<String> args) {
        return Git.run(dir, name, args);
    }

    /** The git binary, argv only, hooks and signing off, no system or global configuration read. */
    static final class Git {
        record Result(int exit, String out, String err) {
            boolean ok() {
                return exit == 0;
            }
        }

        static Result run(Path dir, String author, List<String> args) {
            String path = Optional.ofNullable(System.getenv("PATH")).orElse("/usr/local/bin:/usr/bin:/bin");
            Optional<Path> binary = java.util.Arrays.stream(path.split(java.io.File.pathSeparator))
                    .filter(d -> !d.isBlank()).map(d -> Path.of(d, "git")).filter(Path::isAbsolute)
                    .filter(Files::isExecutable).findFirst();
            if (binary.isEmpty()) {
                return new Result(-1, "", "git is not installed on this host (not on the service's PATH)");
            }
            List<String> argv = new ArrayList<>(List.of(binary.get().toString(), "-c", "core.hooksPath=/dev/null", "-c",
                    "commit.gpgsign=false", "-c", "core.fsmonitor=false", "-c", "protocol.allow=never"));
            if (author != null) {
                String clean = author.replaceAll("[<>\\p{Cntrl}]", "").strip();
                argv.addAll(List.of("-c", "user.name=" + (clean.isEmpty() ? "Agent Workspace" : clean), "-c",
                        "user.email=" + clean.replaceAll("[^A-Za-z0-9._-]", "_") + "@agent-workspace.invalid"));
            }
            argv.add("-C");
            argv.add(dir.toString());
            argv.addAll(args);
            Map<String, String> env = new LinkedHashMap<>();
            env.put("PATH", path);
            env.put("HOME", dir.toString());
            env.put("GIT_CONFIG_NOSYSTEM", "1");
            env.put("GIT_CONFIG_GLOBAL", "/dev/null");
            env.put("GIT_TERMINAL_PROMPT", "0");
            env.put("LC_ALL", "C");
            try {
                Process p = Spawner.start(argv, env, Files.isDirectory(dir) ? dir : null, Spawner.Stdin.NULL);
                CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()),
                        r -> Thread.ofVirtual().start(r));
                String out = read(p.getInputStream());
                if (!p.waitFor(GIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    return new Result(-1, out, "git timed out");
                }
                return new Result(p.exitValue(), out, err.join());
            } catch (IOException e) {
                return new Result(-1, "", "could not run git: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Result(-1, "", "interrupted");
            }
        }

        private static String read(InputStream in) {
            try (in) {
                return new String(in.readNBytes(4 << 20), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }
    }
}
