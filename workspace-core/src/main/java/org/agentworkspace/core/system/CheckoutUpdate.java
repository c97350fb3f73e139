package org.agentworkspace.core.system;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.agentworkspace.core.providers.ChildProcess;

/**
 * A {@code git} update: the source checkout the service runs from is fast-forwarded to its branch's upstream with
 * the {@code git} program (so the operator's own remotes, SSH agent and credential helpers work), every line of git's
 * output a {@code log} event. Refused before anything changes: uncommitted changes to tracked files
 * ({@code UPDATE_LOCAL_CHANGES}), a detached HEAD or a branch without upstream ({@code UPDATE_NO_UPSTREAM}), a branch
 * that has diverged from its upstream ({@code UPDATE_NOT_FAST_FORWARD}). Only fixed arguments reach git (no value
 * of a request), and it gets an allow-listed environment with prompts off. Rebuilding is the launcher's job
 * ({@code scripts/run.sh} rebuilds when the sources are newer than the jar).
 */
final class CheckoutUpdate {
    /**
     * Before every git command: no hooks (a merge's {@code post-merge} would run code from the checkout) and no
     * file-system monitor program ({@code core.fsmonitor} names one that {@code git status} would start).
     */
    private static final List<String> NEUTRAL = List.of("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false");

    private static final Duration SHORT = Duration.ofSeconds(30);
    /** What git may see of the server's environment (besides {@code PATH} and {@code HOME}). */
    private static final List<String> PASSED = List.of("USER", "LOGNAME", "TMPDIR", "SSH_AUTH_SOCK", "GIT_SSH",
            "GIT_SSH_COMMAND", "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
            "GIT_CONFIG_NOSYSTEM", "XDG_CONFIG_HOME");

    private final UpdateSettings settings;
    private final Map<String, String> serverEnv;
    private final UpdateJob job;

    CheckoutUpdate(UpdateSettings settings, Map<String, String> serverEnv, UpdateJob job) {
        this.settings = settings;
        this.serverEnv = serverEnv;
        this.job = job;
    }

    UpdateOutcome run(String running) throws UpdateFailure, IOException, InterruptedException {
        Path dir = settings.sourceDir();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_NOT_CONFIGURED, "no source checkout was found above "
                    + "the server's code (set --source-dir / AW_SOURCE_DIR)");
        }
        String git = findGit().orElseThrow(() -> new UpdateFailure(UpdateErrorCodes.GIT_UNAVAILABLE,
                "the git program is not installed (not found on PATH)"));
        Map<String, String> env = env();
        job.progress("checking", null, "checking the checkout " + dir);

        ChildProcess.Result inside = quiet(git, env, dir, "rev-parse", "--is-inside-work-tree");
        if (!inside.ok() || !inside.stdout().strip().equals("true")) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_NOT_CONFIGURED, dir + " is not a git checkout");
        }
        ChildProcess.Result status = quiet(git, env, dir, "status", "--porcelain=v1", "--untracked-files=no");
        if (!status.ok()) {
            throw failed("git status", status);
        }
        if (!status.stdout().isBlank()) {
            for (String line : status.stdout().strip().split("\n", 50)) {
                job.log("stdout", line);
            }
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_LOCAL_CHANGES, "the checkout has uncommitted changes; "
                    + "commit or stash them, then update again (nothing was changed)");
        }
        ChildProcess.Result branch = quiet(git, env, dir, "symbolic-ref", "--quiet", "--short", "HEAD");
        if (!branch.ok()) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_NO_UPSTREAM, "the checkout is on a detached HEAD; check "
                    + "out a branch that tracks a remote branch");
        }
        ChildProcess.Result upstream = quiet(git, env, dir, "rev-parse", "--abbrev-ref", "--symbolic-full-name",
                "@{upstream}");
        if (!upstream.ok()) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_NO_UPSTREAM, "the branch " + branch.stdout().strip()
                    + " has no upstream (git branch --set-upstream-to=<remote>/<branch>)");
        }
        String from = revision(git, env, dir, "HEAD");
        job.log("meta", "on " + branch.stdout().strip() + " at " + shortId(from) + ", upstream "
                + upstream.stdout().strip());

        job.progress("fetching", null, "fetching " + upstream.stdout().strip());
        int fetched = logged(git, env, dir, settings.timeout(), "fetch", "--no-recurse-submodules");
        if (fetched != 0) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_SOURCE_UNAVAILABLE, fetched < 0
                    ? "git fetch did not finish in time and was stopped"
                    : "git fetch failed (exit " + fetched + "); see the log lines");
        }
        String to = revision(git, env, dir, "@{upstream}");
        if (to.equals(from)) {
            return new UpdateOutcome(false, InstallMode.GIT, running, null, from, from, false,
                    "already up to date (" + shortId(from) + ")");
        }
        if (quiet(git, env, dir, "merge-base", "--is-ancestor", "@{upstream}", "HEAD").ok()) {
            return new UpdateOutcome(false, InstallMode.GIT, running, null, from, from, false,
                    "the checkout is ahead of its upstream; nothing to update");
        }
        if (!quiet(git, env, dir, "merge-base", "--is-ancestor", "HEAD", "@{upstream}").ok()) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_NOT_FAST_FORWARD, "the branch and "
                    + upstream.stdout().strip() + " have diverged; a fast-forward is impossible (merge or rebase by "
                    + "hand; nothing was changed)");
        }
        ChildProcess.Result log = quiet(git, env, dir, "log", "--oneline", "--no-decorate", "--max-count=50",
                "HEAD..@{upstream}");
        if (log.ok()) {
            for (String line : log.stdout().strip().split("\n")) {
                if (!line.isBlank()) {
                    job.log("stdout", line);
                }
            }
        }
        job.progress("merging", null, "fast-forwarding to " + shortId(to));
        int merged = logged(git, env, dir, SHORT.multipliedBy(4), "merge", "--ff-only", "--no-edit", "@{upstream}");
        if (merged != 0) {
            throw new UpdateFailure(UpdateErrorCodes.UPDATE_FAILED, "git merge --ff-only failed (exit " + merged
                    + "); see the log lines (an untracked file in the way?) — the checkout is unchanged");
        }
        String now = revision(git, env, dir, "HEAD");
        job.progress("restarting", null, "exiting with code " + SystemUpdater.RESTART_EXIT_CODE
                + " for the launcher to rebuild and start " + shortId(now));
        return new UpdateOutcome(true, InstallMode.GIT, running, null, from, now, true,
                "fast-forwarded from " + shortId(from) + " to " + shortId(now) + "; the service restarts (the "
                        + "launcher rebuilds it)");
    }

    private static String shortId(String id) {
        return id.length() > 12 ? id.substring(0, 12) : id;
    }

    private String revision(String git, Map<String, String> env, Path dir, String rev) throws UpdateFailure,
            IOException, InterruptedException {
        ChildProcess.Result r = quiet(git, env, dir, "rev-parse", "--verify", "--quiet", "--end-of-options",
                rev + "^{commit}");
        if (!r.ok()) {
            throw failed("git rev-parse " + rev, r);
        }
        return r.stdout().strip();
    }

    private static UpdateFailure failed(String what, ChildProcess.Result r) {
        String err = r.stderr().strip();
        int nl = err.lastIndexOf('\n');
        return new UpdateFailure(UpdateErrorCodes.UPDATE_FAILED, what + " failed"
                + (err.isEmpty() ? "" : ": " + (nl < 0 ? err : err.substring(nl + 1))));
    }

    /** Runs git with output captured. */
    private static ChildProcess.Result quiet(String git, Map<String, String> env, Path dir, String... args)
            throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>();
        argv.add(git);
        argv.addAll(NEUTRAL);
        argv.addAll(List.of(args));
        return ChildProcess.run(argv, env, dir, SHORT);
    }

    /** Runs git with every output line as a log event; the exit code, or -1 when it timed out (then killed). */
    private int logged(String git, Map<String, String> env, Path dir, Duration timeout, String... args)
            throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>();
        argv.add(git);
        argv.addAll(NEUTRAL);
        argv.addAll(List.of(args));
        job.log("meta", "$ git " + String.join(" ", args));
        try (ChildProcess c = ChildProcess.start(argv, env, dir, (s, line) -> {
            if (!line.isBlank()) {
                job.log(s == ChildProcess.Stream.STDOUT ? "stdout" : "stderr", line);
            }
        })) {
            Optional<Integer> exit = c.waitFor(timeout);
            if (exit.isEmpty()) {
                c.killTree();
                return -1;
            }
            return exit.get();
        }
    }

    private Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", serverEnv.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
        env.put("HOME", serverEnv.getOrDefault("HOME", System.getProperty("user.home")));
        for (String name : PASSED) {
            String v = serverEnv.get(name);
            if (v != null) {
                env.put(name, v);
            }
        }
        env.put("LANG", "C.UTF-8");
        env.put("LC_ALL", "C.UTF-8");
        env.put("GIT_TERMINAL_PROMPT", "0");
        return env;
    }

    /** The first executable {@code git} on the server's PATH. */
    private Optional<String> findGit() {
        String path = serverEnv.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        for (String d : path.split(":")) {
            if (d.isEmpty()) {
                continue;
            }
            Path p = Path.of(d, "git");
            if (p.isAbsolute() && Files.isExecutable(p) && !Files.isDirectory(p)) {
                return Optional.of(p.toString());
            }
        }
        return Optional.empty();
    }
}
