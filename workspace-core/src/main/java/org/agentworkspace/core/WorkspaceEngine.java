package org.agentworkspace.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.files.VcsProviders;
import org.agentworkspace.core.index.HistoryIndex;
import org.agentworkspace.core.notifications.Notifications;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.providers.ProviderCredentialStore;
import org.agentworkspace.core.providers.ProviderManagement;
import org.agentworkspace.core.secrets.GitTokens;
import org.agentworkspace.core.secrets.SecretBox;
import org.agentworkspace.core.secrets.SharedKeys;
import org.agentworkspace.core.secrets.UserSecrets;
import org.agentworkspace.core.settings.UserSettings;
import org.agentworkspace.core.tasks.Tasks;
import org.agentworkspace.core.store.SecureFiles;
import org.agentworkspace.core.store.SqliteNative;
import org.agentworkspace.core.store.Store;

/**
 * The engine: one instance per data directory, usable from any JVM program without the server. Opening it creates
 * the data directory (0700), opens and migrates the store, and loads or creates the signing secret (0600).
 * Two engines on two data directories coexist in one JVM; nothing is static. The secret key that seals stored
 * secrets ({@code secret.key}, 0600) is created on first start too.
 */
public final class WorkspaceEngine implements AutoCloseable {
    private static final int SIGNING_SECRET_BYTES = 32;
    private static final String SIGNING_SECRET_FILE = "jwt-secret";

    private final EngineConfig config;
    private final Store store;
    private final Authentication auth;
    private final RunEngine runs;
    private final byte[] signingSecret;
    private final SecretBox secretBox;
    private final UserSecrets userSecrets;
    private final GitTokens gitTokens;
    private final ProjectRegistry projects;
    private final ProviderCredentialStore providerCredentials;
    private final ProviderManagement providers;
    private final UserSettings settings;
    private final Tasks tasks;
    private final HistoryIndex history;
    private final Notifications notifications;
    private final org.agentworkspace.core.loop.AgentLoop agentLoop;
    private final Map<String, String> environment;
    private org.agentworkspace.core.agent.AgentRunService agentRunService;
    private org.agentworkspace.core.agent.WorkflowRuns workflowRuns;

    private WorkspaceEngine(EngineConfig config, Store store, byte[] signingSecret, SecretBox secretBox,
                            Map<String, String> environment) {
        long t0 = System.nanoTime();
        this.config = config;
        this.environment = Map.copyOf(environment);
        this.store = store;
        this.signingSecret = signingSecret;
        this.auth = Authentication.create(store, config.clock(), config.auth());
        this.secretBox = secretBox;
        this.userSecrets = UserSecrets.create(store, secretBox, config.clock());
        this.gitTokens = GitTokens.create(userSecrets);
        VcsProviders vcs = VcsProviders.load();
        // the provider adapters and their descriptors: ServiceLoader's, unless the embedding application gave others
        org.agentworkspace.core.providers.ProviderCatalog catalog = org.agentworkspace.core.providers.ProviderCatalog
                .of(config.providers() != null ? config.providers()
                        : org.agentworkspace.api.provider.AgentProviders.load());
        org.agentworkspace.core.providers.ProviderPaths paths =
                org.agentworkspace.core.providers.ProviderPaths.of(config.dataDir(), environment);
        this.projects = ProjectRegistry.create(store, config.clock(), config.dataDir(), vcs,
                projectRoots(config, paths, environment, catalog));
        // the history index starts first: its listing runs in the background while the rest of the engine opens
        List<Path> homes = new java.util.ArrayList<>(config.historyHomes() != null ? config.historyHomes()
                : List.of(paths.home()));
        // gemini runs started by this service keep their sessions in gemini's own home (GEMINI_CLI_HOME)
        Path geminiHome = paths.providerDir("gemini").toAbsolutePath().normalize();
        if (!homes.contains(geminiHome)) {
            homes.add(geminiHome);
        }
        long t1 = System.nanoTime();
        this.history = HistoryIndex.create(store, projects, homes, config.clock(), HISTORY_SWEEP);
        if (config.historyIndex()) {
            history.start();
        }
        long t2 = System.nanoTime();
        try {
            this.providerCredentials = ProviderCredentialStore.create(store, secretBox, config.clock(), catalog);
            providerCredentials.useOutboundPolicy(config.access().outbound());
            this.providers = ProviderManagement.create(config.dataDir(), environment, providerCredentials,
                    name -> Path.of(projects.get(name).path()), config.clock(),
                    ProviderManagement.Settings.fromEnvironment(environment, catalog.ids()));
            long t3 = System.nanoTime();
            this.runs = RunEngine.open(store, config.runs(), config.clock(), node(config.dataDir()));
            runs.retain(config.runRetention());
            // a deleted account's queued and running runs are cancelled at once (docs/auth.md)
            auth.accounts().watch().onDeleted(runs::cancelOwnedBy);
            this.settings = UserSettings.create(store, config.clock());
            this.nodes = org.agentworkspace.core.runs.NodeDirectory.of(store, runs.nodeId(), projects.roots().roots());
            this.tasks = Tasks.create(store, config.clock(), Duration.ofSeconds(60));
            // several nodes: a task's occurrence is fired by a node that has its project's folder
            tasks.fireOnlyWhere(this::firesHere);
            long t4 = System.nanoTime();
            this.notifications = Notifications.create(store, settings, secretBox, config.clock(), config.webPush());
            notifications.webPush().useOutboundPolicy(config.access().outbound());
            long t5 = System.nanoTime();
            this.agentLoop = org.agentworkspace.core.loop.AgentLoop.create(store, config.clock(), runs,
                    providers.installs(), history, projects, vcs.find("git"));
            long t6 = System.nanoTime();
            LOG.log(System.Logger.Level.INFO, () -> String.format(java.util.Locale.ROOT, "engine parts opened in %d ms: "
                    + "auth and projects %d, history index %d, providers %d, runs and tasks %d, notifications %d, "
                    + "agent loop %d", ms(t6 - t0), ms(t1 - t0), ms(t2 - t1), ms(t3 - t2), ms(t4 - t3), ms(t5 - t4),
                    ms(t6 - t5)));
        } catch (RuntimeException e) {
            history.close();
            throw e;
        }
    }

    private static final System.Logger LOG = System.getLogger(WorkspaceEngine.class.getName());

    /**
     * The project roots of {@code config} (its HOME when none are configured), refusing the folders the CLIs are
     * started from: every absolute {@code PATH} entry and the install jobs' npm prefix.
     */
    /**
     * The folder of a configured binary: the binary's folder when it is a file, the path itself when it is a folder
     * or missing (a missing path lies inside no project, and no project may hold it).
     */
    /**
     * Executable names protected besides the provider CLIs' own: the node they run on, and {@code cursor}, which
     * Cursor's installer links beside {@code cursor-agent}.
     */
    private static final List<String> EXTRA_NAMES = List.of("cursor", "node", "npm", "npx");

    private static Path binaryFolder(Path p) {
        return java.nio.file.Files.isRegularFile(p) && p.getParent() != null ? p.getParent() : p;
    }

    private static org.agentworkspace.core.projects.ProjectRoots projectRoots(EngineConfig config,
            org.agentworkspace.core.providers.ProviderPaths paths, Map<String, String> environment,
            org.agentworkspace.core.providers.ProviderCatalog catalog) {
        // the executables the service starts: every loaded provider's binaries, and node
        java.util.Set<String> cliNames = new java.util.LinkedHashSet<>();
        catalog.adapters().all().forEach(a -> cliNames.addAll(a.binaryNames()));
        cliNames.addAll(EXTRA_NAMES);
        List<Path> cli = new java.util.ArrayList<>();
        cli.add(paths.cliBin());
        for (Path p : config.access().cliFolders()) {
            cli.add(binaryFolder(p));
            try {
                if (java.nio.file.Files.isRegularFile(p)) {
                    cli.add(binaryFolder(p.toRealPath()));
                }
            } catch (java.io.IOException e) {
                // unreadable: the folder above is protected already
            }
        }
        environment.forEach((name, value) -> {
            // AW_CLAUDE_PATH and the other per-provider binaries (provider-management.md)
            if (name.startsWith("AW_") && name.endsWith("_PATH") && !value.isBlank() && Path.of(value).isAbsolute()) {
                cli.add(binaryFolder(Path.of(value)));
            }
        });
        String path = environment.get("PATH");
        if (path != null) {
            for (String entry : path.split(java.io.File.pathSeparator)) {
                if (!entry.isBlank() && Path.of(entry).isAbsolute()) {
                    cli.add(Path.of(entry));
                }
            }
        }
        // where the CLIs' links lead (an npm prefix's bin/claude → lib/node_modules/…/cli.js)
        for (Path folder : List.copyOf(cli)) {
            for (String name : cliNames) {
                Path binary = folder.resolve(name);
                if (java.nio.file.Files.exists(binary)) {
                    try {
                        Path real = binary.toRealPath();
                        cli.add(real.getParent() != null ? real.getParent() : real);
                    } catch (java.io.IOException e) {
                        // a broken link: nothing to protect
                    }
                }
            }
        }
        List<Path> roots = config.access().projectRoots() != null ? config.access().projectRoots()
                : List.of(paths.home());
        return org.agentworkspace.core.projects.ProjectRoots.create(roots, paths.home(), config.dataDir(), cli);
    }

    /** The file in the data directory that keeps this node's id, so a restarted server is the same node. */
    static final String NODE_ID_FILE = "node-id";

    /**
     * This data directory's node: its id from {@code node-id} (created on first start: {@code node_} and 20 random
     * characters, written to a temporary file and renamed), and this machine's host name.
     */
    static org.agentworkspace.core.runs.RunNode node(Path dataDir) {
        Path file = dataDir.resolve(NODE_ID_FILE);
        try {
            if (!java.nio.file.Files.exists(file)) {
                String fresh = org.agentworkspace.core.runs.RunNode.ephemeral().id();
                Path tmp = dataDir.resolve(NODE_ID_FILE + ".tmp-" + ProcessHandle.current().pid());
                java.nio.file.Files.writeString(tmp, fresh + "\n");
                try {
                    // a link never replaces an existing file: if another process won the race, its id stays
                    java.nio.file.Files.createLink(file, tmp);
                } catch (java.nio.file.FileAlreadyExistsException e) {
                    // keep the other one
                } finally {
                    java.nio.file.Files.deleteIfExists(tmp);
                }
            }
            String id = java.nio.file.Files.readString(file).strip();
            try {
                return new org.agentworkspace.core.runs.RunNode(id, org.agentworkspace.core.runs.RunNode.localHost());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(file + " does not hold a node id (" + e.getMessage() + "); remove it "
                        + "to get a new one", e);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create " + file, e);
        }
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }

    /** How often the history index lists every history directory again (a backstop to its file watcher). */
    private static final java.time.Duration HISTORY_SWEEP = java.time.Duration.ofSeconds(5);

    /** Opens the engine on its data directory and store, with this process's environment. */
    public static WorkspaceEngine open(EngineConfig config) {
        return open(config, System.getenv());
    }

    /**
     * Opens the engine on its data directory and store.
     *
     * @param environment the server's environment: provider management takes HOME, PATH, the XDG and proxy
     *                    variables and npm settings from it (children inherit only an allow-list)
     */
    public static WorkspaceEngine open(EngineConfig config, Map<String, String> environment) {
        try {
            SecureFiles.ensurePrivateDirectory(config.dataDir());
            String url = config.jdbcUrl() != null ? config.jdbcUrl() : Store.sqliteUrl(config.dataDir());
            if (url.startsWith("jdbc:sqlite:")) {
                // once per JVM: the driver's native library from native/ instead of a fresh copy in the temp dir
                SqliteNative.prepare(config.dataDir().resolve("native"));
                byte[] secret = SecureFiles.loadOrCreateSecret(config.dataDir().resolve(SIGNING_SECRET_FILE),
                        SIGNING_SECRET_BYTES);
                SecretBox box = SecretBox.open(config.dataDir());
                return new WorkspaceEngine(config, Store.open(url), secret, box, Map.copyOf(environment));
            }
            // a shared store (PostgreSQL): several nodes may serve it, so the signing secret and the sealing key come
            // from the store, seeded once from the first node's files (docs/scale-out.md "Identity")
            Store store = Store.open(url);
            try {
                byte[] secret = SharedKeys.loadOrCreate(store, SIGNING_SECRET_FILE,
                        config.dataDir().resolve(SIGNING_SECRET_FILE), SIGNING_SECRET_BYTES, config.clock());
                SecretBox box = SecretBox.withKey(SharedKeys.loadOrCreate(store, SecretBox.KEY_FILE,
                        config.dataDir().resolve(SecretBox.KEY_FILE), SecretBox.KEY_BYTES, config.clock()));
                return new WorkspaceEngine(config, store, secret, box, Map.copyOf(environment));
            } catch (IOException | RuntimeException e) {
                store.close();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the data directory", e);
        }
    }

    public EngineConfig config() {
        return config;
    }

    /** Accounts, keys, tickets and the login throttle. */
    public Authentication auth() {
        return auth;
    }

    /** Provider CLI runs: limits, queue, process trees, event logs (opened with the engine, closed with it). */
    public RunEngine runs() {
        return runs;
    }

    /**
     * The per-account caps on open streams and sockets counted over every live node when several nodes share a
     * PostgreSQL store ({@code OpenStreams.shared()} false on SQLite: the server counts in memory alone).
     */
    public org.agentworkspace.core.runs.OpenStreams openStreams() {
        return runs.openStreams();
    }

    /**
     * The 256-bit secret that signs session tokens: on SQLite generated on first start and kept in {@code jwt-secret};
     * on PostgreSQL the store's shared one, so every node verifies every node's tokens (docs/scale-out.md).
     */
    public byte[] signingSecret() {
        return signingSecret.clone();
    }

    /**
     * Whether this node's heartbeat worker is fine (always on SQLite, where none runs): false once it gave up after
     * repeated failures, for the server's watchdog (docs/scale-out.md).
     */
    public boolean nodeHeartbeatHealthy() {
        return runs.heartbeatHealthy();
    }

    private final org.agentworkspace.core.runs.NodeDirectory nodes;

    /**
     * The nodes of the store with the roots and address each declared, and which one serves a folder
     * (docs/scale-out.md "Where work runs"); on SQLite every folder is this node's.
     */
    public org.agentworkspace.core.runs.NodeDirectory nodes() {
        return nodes;
    }

    /**
     * Whether this node fires the task's occurrence (docs/scale-out.md "Where work runs"): always on SQLite; on a
     * shared store unless another live node's roots hold the project's folder and this node's do not (a folder only
     * stopped nodes have is fired here, and its run fails as a missing folder does).
     */
    private boolean firesHere(org.agentworkspace.core.tasks.AutomationTask task) {
        org.agentworkspace.core.runs.NodeDirectory d = nodes();
        if (!d.shared()) {
            return true;
        }
        java.util.Optional<Path> folder = projects.lookup(task.projectId()).map(p -> Path.of(p.path()))
                .or(() -> history.findProject(task.projectId()).map(h -> Path.of(h.path())));
        return folder.isEmpty() || d.place(folder.get()).target().isEmpty();
    }

    /** Registered project folders, and confined access to their files and git. */
    public ProjectRegistry projects() {
        return projects;
    }

    /** Seals secrets for storage with the data directory's key ({@code secret.key}), on PostgreSQL the store's. */
    public SecretBox secretBox() {
        return secretBox;
    }

    /** Per-user sealed secrets (git token, provider keys). */
    public UserSecrets userSecrets() {
        return userSecrets;
    }

    /** Each user's git token for push and pull. */
    public GitTokens gitTokens() {
        return gitTokens;
    }

    /**
     * Provider management: status, stored credentials, models, install jobs, config files, MCP entries, and the
     * binary and credential a run of a provider uses.
     */
    /** Automation tasks; their scheduler starts when the embedder calls {@link Tasks#start}. */
    public Tasks tasks() {
        return tasks;
    }

    /** Users' non-secret settings (notification preferences). */
    public UserSettings settings() {
        return settings;
    }

    /**
     * Notification delivery (in-app list and stream, Web Push); its sources are attached with
     * {@link Notifications#attach} by whoever creates the {@code AgentRuns}.
     */
    public Notifications notifications() {
        return notifications;
    }

    public ProviderManagement providers() {
        return providers;
    }

    /**
     * The conversation history index: the unified project list, sessions, message pages and full-text search over
     * every provider's history under the history homes (started with the engine unless turned off in the config).
     */
    public HistoryIndex history() {
        return history;
    }

    /** The schema version of the store, for diagnostics. */
    /** The administrator's production agent loop: background jobs, checkpoints, review queue, release policy. */
    public org.agentworkspace.core.loop.AgentLoop agentLoop() {
        return agentLoop;
    }

    /**
     * The run use cases ({@link org.agentworkspace.core.agent.AgentRunService}): built on the first call with these
     * agent settings (binaries, provider environment, clone rules; the projects are this engine's registry, the
     * credentials its store unless the settings name another source); later calls return the same service. Runs'
     * children inherit the allow-listed variables of the environment the engine was opened with.
     */
    public synchronized org.agentworkspace.core.agent.AgentRunService agentRuns(
            org.agentworkspace.core.agent.AgentSettings settings) {
        if (agentRunService == null) {
            // a project is a registered one, else one found only in the CLIs' histories (a person continues a
            // conversation found on disk without registering its folder first); either way its folder must still lie
            // where projects may
            org.agentworkspace.core.agent.AgentSettings agent = settings.withProjects(id -> projects.lookup(id)
                    .map(p -> projects.checkWorkingDirectory(java.nio.file.Path.of(p.path())))
                    .or(() -> history.findProject(id).filter(h -> !h.registered())
                            .map(h -> projects.checkWorkingDirectory(java.nio.file.Path.of(h.path())))));
            org.agentworkspace.core.agent.AgentRuns launcher = org.agentworkspace.core.agent.AgentRuns.create(runs,
                    providers.adapters(), config.dataDir(), environment, agent,
                    providers.credentials());
            // one rule for a provider's binary: the status route reports the binary a run spawns (--cli-path first)
            providers.useOperatorBinaries(settings.binaries());
            launcher.useBinaryResolver(providers::resolveBinary);
            notifications.attach(launcher);
            org.agentworkspace.core.agent.RunWorktrees worktrees = org.agentworkspace.core.agent.RunWorktrees.create(
                    store, config.dataDir().resolve("worktrees"), runs, config.clock());
            worktrees.startSweeper(org.agentworkspace.core.agent.RunWorktrees.DEFAULT_MAX_AGE, java.time.Duration.ofHours(1));
            agentRunService = org.agentworkspace.core.agent.AgentRunService.create(launcher, tasks, worktrees);
            workflowRuns = org.agentworkspace.core.agent.WorkflowRuns.create(agentRunService, store, config.clock());
        }
        return agentRunService;
    }

    /**
     * The workflow family served over automation runs ({@link org.agentworkspace.core.agent.WorkflowRuns}), built
     * with {@link #agentRuns(org.agentworkspace.core.agent.AgentSettings)} (call that first).
     */
    public synchronized org.agentworkspace.core.agent.WorkflowRuns workflowRuns() {
        if (workflowRuns == null) {
            agentRuns();
        }
        return workflowRuns;
    }

    /** {@link #agentRuns(org.agentworkspace.core.agent.AgentSettings)} with the default agent settings. */
    public org.agentworkspace.core.agent.AgentRunService agentRuns() {
        return agentRuns(org.agentworkspace.core.agent.AgentSettings.defaults());
    }

    public int schemaVersion() {
        return store.schemaVersion();
    }

    @Override
    public void close() {
        try {
            tasks.close();
            notifications.close();
            history.close();
            // runs cut off by the stop are finished by the review queue's recovery at the next open, not while the
            // store closes under it
            runs.unobserve(agentLoop.reviews());
            if (workflowRuns != null) {
                workflowRuns.close();
            }
            if (agentRunService != null) {
                agentRunService.worktrees().ifPresent(org.agentworkspace.core.agent.RunWorktrees::close);
            }
            runs.close();
            providers.close();
        } finally {
            store.close();
        }
    }
}
