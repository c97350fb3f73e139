package org.agentworkspace.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.agentworkspace.api.vcs.VcsOptions;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.core.files.FileLimits;
import org.agentworkspace.core.system.UpdateSettings;
import org.agentworkspace.server.http.ConnectionLimits;

/**
 * The server's configuration: defaults, then environment variables, then command-line flags (later wins), validated
 * once. docs/configuration.md lists every setting.
 *
 * @param host                    interface to bind (default 127.0.0.1)
 * @param port                    TCP port (default 3001; 0 picks a free one)
 * @param engine                  data directory, database URL and auth settings
 * @param allowedHosts            extra names accepted in the Host header while bound to loopback (DNS rebinding
 *                                guard); localhost, 127.0.0.1 and [::1] are always accepted
 * @param allowedOrigins          extra origins (scheme://host[:port]) allowed to send cookie-authenticated changes
 *                                and WebSocket upgrades, besides the server's own origin
 * @param trustedProxies          peer addresses whose X-Forwarded-For / X-Forwarded-Proto are believed
 * @param legacyQueryCredentials  accept {@code ?apiKey=} / {@code ?token=} (off by default; reusable credentials
 *                                do not belong in URLs)
 * @param secureCookies           mark the session cookie Secure even on plain HTTP (for TLS-terminating proxies)
 * @param maxPayloadBytes         largest request body (default 1 MiB)
 * @param maxHeaderBytes          largest request header block (default 16 KiB)
 * @param shutdownGrace           how long in-flight requests get on SIGTERM (default 3 s)
 * @param browseRoots             host folders the administrator's folder picker may show (default the home folder)
 * @param gitCredentialOrigins    origins ({@code https://host[:port]}) to which a user's git token is sent on push
 *                                and pull (default {@code https://github.com})
 * @param fileLimits              largest file read or written through the file API, most entries listed
 * @param agent                   how agent runs are launched: configured CLI paths, provider environment, clone
 *                                allow-list, GitHub API, trusted local project paths (docs/agent-runs.md)
 * @param update                  where self-updates come from and go to: the manifest URL, the runtime directory,
 *                                the source checkout (null: the one the code runs from), the package size limit
 *                                (docs/system-update.md)
 * @param connections             caps on TCP connections in all and per client address, the deadline for a request
 *                                head, the idle timeout ({@link ConnectionLimits}; docs/configuration.md)
 * @param node                    this node's part in several nodes on one store: the address it advertises, whether
 *                                it is a runner only ({@link NodeRole}; docs/scale-out.md "Where work runs")
 */
public record ServerConfig(String host, int port, EngineConfig engine, Set<String> allowedHosts,
                           Set<String> allowedOrigins, Set<String> trustedProxies, boolean legacyQueryCredentials,
                           boolean secureCookies, long maxPayloadBytes, int maxHeaderBytes, Duration shutdownGrace,
                           List<Path> browseRoots, Set<String> gitCredentialOrigins, FileLimits fileLimits,
                           AgentSettings agent, UpdateSettings update, ConnectionLimits connections,
                           NodeRole node) {

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 3001;

    public ServerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0-65535");
        }
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host must not be empty");
        }
        allowedHosts = lower(allowedHosts);
        allowedOrigins = lower(allowedOrigins);
        trustedProxies = Set.copyOf(trustedProxies);
        if (maxPayloadBytes < 1024 || maxHeaderBytes < 1024) {
            throw new IllegalArgumentException("size limits must be at least 1024 bytes");
        }
        if (browseRoots == null || browseRoots.isEmpty()) {
            throw new IllegalArgumentException("at least one browse root is needed");
        }
        browseRoots = browseRoots.stream().map(p -> {
            if (!p.isAbsolute()) {
                throw new IllegalArgumentException("browse roots must be absolute paths: " + p);
            }
            return p.normalize();
        }).toList();
        // normalises and validates each origin (scheme://host[:port]); a bad one stops the start
        gitCredentialOrigins = VcsOptions.defaults().withCredentialOrigins(gitCredentialOrigins).credentialOrigins();
        java.util.Objects.requireNonNull(fileLimits, "fileLimits");
        java.util.Objects.requireNonNull(agent, "agent");
        java.util.Objects.requireNonNull(update, "update");
        java.util.Objects.requireNonNull(connections, "connections");
        java.util.Objects.requireNonNull(node, "node");
    }

    /** The body limit of the routes that carry file content: twice the largest file, plus 64 KiB for the rest. */
    public long maxFileBodyBytes() {
        return Math.max(maxPayloadBytes, 2 * fileLimits.maxWriteBytes() + 64 * 1024);
    }

    /** Settings of git access: the credential origins; other settings at their defaults. */
    public VcsOptions vcsOptions() {
        return VcsOptions.defaults().withCredentialOrigins(gitCredentialOrigins);
    }

    /** Defaults: 127.0.0.1:3001, data in {@code ~/.agent-workspace}. */
    public static ServerConfig defaults() {
        return forDataDir(Path.of(System.getProperty("user.home"), ".agent-workspace"));
    }

    public static ServerConfig forDataDir(Path dataDir) {
        return new ServerConfig(DEFAULT_HOST, DEFAULT_PORT, EngineConfig.create(dataDir), Set.of(), Set.of(),
                Set.of(), false, false, 1024 * 1024, 16 * 1024, Duration.ofSeconds(3),
                List.of(Path.of(System.getProperty("user.home"))), Set.of("https://github.com"), FileLimits.defaults(),
                AgentSettings.defaults(), UpdateSettings.defaults(dataDir), ConnectionLimits.defaults(),
                NodeRole.defaults());
    }

    public ServerConfig withPort(int p) {
        return new ServerConfig(host, p, engine, allowedHosts, allowedOrigins, trustedProxies, legacyQueryCredentials,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, browseRoots, gitCredentialOrigins, fileLimits, agent, update,
                connections, node);
    }

    public ServerConfig withHost(String h) {
        return new ServerConfig(h, port, engine, allowedHosts, allowedOrigins, trustedProxies, legacyQueryCredentials,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, browseRoots, gitCredentialOrigins, fileLimits, agent, update,
                connections, node);
    }

    public ServerConfig withEngine(EngineConfig e) {
        return new ServerConfig(host, port, e, allowedHosts, allowedOrigins, trustedProxies, legacyQueryCredentials,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, browseRoots, gitCredentialOrigins, fileLimits, agent, update,
                connections, node);
    }

    public ServerConfig withAgent(AgentSettings a) {
        return new ServerConfig(host, port, engine, allowedHosts, allowedOrigins, trustedProxies, legacyQueryCredentials,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, browseRoots, gitCredentialOrigins, fileLimits,
                a, update, connections, node);
    }

    public ServerConfig withLegacyQueryCredentials(boolean on) {
        return new ServerConfig(host, port, engine, allowedHosts, allowedOrigins, trustedProxies, on,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, browseRoots, gitCredentialOrigins, fileLimits, agent, update,
                connections, node);
    }

    public ServerConfig withBrowseRoots(List<Path> roots) {
        return new ServerConfig(host, port, engine, allowedHosts, allowedOrigins, trustedProxies, legacyQueryCredentials,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, roots, gitCredentialOrigins, fileLimits, agent, update,
                connections, node);
    }

    public ServerConfig withGitCredentialOrigins(Set<String> origins) {
        return new ServerConfig(host, port, engine, allowedHosts, allowedOrigins, trustedProxies, legacyQueryCredentials,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, browseRoots, origins, fileLimits, agent, update,
                connections, node);
    }

    public ServerConfig withUpdate(UpdateSettings u) {
        return new ServerConfig(host, port, engine, allowedHosts, allowedOrigins, trustedProxies, legacyQueryCredentials,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, browseRoots, gitCredentialOrigins, fileLimits,
                agent, u, connections, node);
    }

    /** This node's advertised address and runner-only switch (docs/scale-out.md "Where work runs"). */
    public ServerConfig withNode(NodeRole n) {
        return new ServerConfig(host, port, engine, allowedHosts, allowedOrigins, trustedProxies, legacyQueryCredentials,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, browseRoots, gitCredentialOrigins, fileLimits,
                agent, update, connections, n);
    }

    public ServerConfig withConnections(ConnectionLimits c) {
        return new ServerConfig(host, port, engine, allowedHosts, allowedOrigins, trustedProxies, legacyQueryCredentials,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, browseRoots, gitCredentialOrigins, fileLimits,
                agent, update, c, node);
    }

    public ServerConfig withFileLimits(FileLimits limits) {
        return new ServerConfig(host, port, engine, allowedHosts, allowedOrigins, trustedProxies, legacyQueryCredentials,
                secureCookies, maxPayloadBytes, maxHeaderBytes, shutdownGrace, browseRoots, gitCredentialOrigins, limits, agent, update,
                connections, node);
    }

    /**
     * The folders projects and run working directories may lie in ({@code --project-roots}; the home folder by
     * default); see docs/auth.md "Project roots".
     */
    public ServerConfig withProjectRoots(List<Path> roots) {
        return withEngine(engine.withAccess(engine.access().withProjectRoots(roots)));
    }

    /**
     * {@code host:port} endpoints the service may connect to although they are loopback, private or link-local
     * ({@code --outbound-allow}): a provider baseUrl on this machine (the mock LLM in tests), a Web Push stand-in.
     */
    public ServerConfig withOutboundAllow(Set<String> endpoints) {
        return withEngine(engine.withAccess(engine.access().withOutboundAllow(endpoints)));
    }

    /** True when bound to a loopback address only (then the Host header is checked against known names). */
    public boolean loopbackOnly() {
        String h = host.toLowerCase(Locale.ROOT);
        return h.equals("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("[::1]");
    }

    /** Each option's environment variable: {@code AW_HOST} sets {@code --host}, and so on (Main's usage lists them). */
    static final Map<String, String> ENV_NAMES = Map.ofEntries(
            Map.entry("AW_HOST", "host"), Map.entry("AW_PORT", "port"), Map.entry("AW_DATA_DIR", "data-dir"),
            Map.entry("AW_DB_URL", "db-url"), Map.entry("AW_ALLOWED_HOSTS", "allowed-hosts"),
            Map.entry("AW_ALLOWED_ORIGINS", "allowed-origins"),
            Map.entry("AW_TRUSTED_PROXIES", "trusted-proxies"),
            Map.entry("AW_LEGACY_QUERY_CREDENTIALS", "legacy-query-credentials"),
            Map.entry("AW_SECURE_COOKIES", "secure-cookies"), Map.entry("AW_SESSION_HOURS", "session-hours"),
            Map.entry("AW_MAX_PAYLOAD_BYTES", "max-payload-bytes"), Map.entry("AW_BROWSE_ROOTS", "browse-roots"),
            Map.entry("AW_GIT_CREDENTIAL_ORIGINS", "git-credential-origins"),
            Map.entry("AW_MAX_FILE_BYTES", "max-file-bytes"), Map.entry("AW_CLI_PATH", "cli-path"),
            Map.entry("AW_CLONE_ALLOWED_HOSTS", "clone-allowed-hosts"),
            Map.entry("AW_GITHUB_API_URL", "github-api-url"),
            Map.entry("AW_TRUST_LOCAL_PROJECT_PATHS", "trust-local-project-paths"),
            Map.entry("AW_PROVIDER_ENV", "provider-env"),
            Map.entry("AW_MAX_CONCURRENT_RUNS", "max-concurrent-runs"),
            Map.entry("AW_MAX_RUN_OUTPUT_BYTES", "max-run-output-bytes"),
            Map.entry("AW_RUN_RETENTION_DAYS", "run-retention-days"),
            Map.entry("AW_RUN_RETENTION_COUNT", "run-retention-count"),
            Map.entry("AW_MAX_CONNECTIONS", "max-connections"),
            Map.entry("AW_MAX_CONNECTIONS_PER_ADDRESS", "max-connections-per-address"),
            Map.entry("AW_HEAD_TIMEOUT_SECONDS", "head-timeout-seconds"),
            Map.entry("AW_IDLE_TIMEOUT_SECONDS", "idle-timeout-seconds"),
            Map.entry("AW_MAX_STREAMS_PER_ACCOUNT", "max-streams-per-account"),
            Map.entry("AW_MAX_RUNS_PER_ACCOUNT", "max-runs-per-account"),
            Map.entry("AW_MAX_QUEUED_RUNS_PER_ACCOUNT", "max-queued-runs-per-account"),
            Map.entry("AW_HISTORY_HOME", "history-home"), Map.entry("AW_HISTORY_INDEX", "history-index"),
            Map.entry("AW_UPDATE_URL", "update-url"), Map.entry("AW_RUNTIME_DIR", "runtime-dir"),
            Map.entry("AW_SOURCE_DIR", "source-dir"), Map.entry("AW_UPDATE_MAX_BYTES", "update-max-bytes"),
            Map.entry("AW_UPDATE_PUBLIC_KEY", "update-public-key"),
            Map.entry("AW_WEB_PUSH_SUBJECT", "web-push-subject"),
            Map.entry("AW_WEB_PUSH_ALLOW_LOOPBACK_HTTP", "web-push-allow-loopback-http"),
            Map.entry("AW_PROJECT_ROOTS", "project-roots"), Map.entry("AW_OUTBOUND_ALLOW", "outbound-allow"),
            Map.entry("AW_ADVERTISE_URL", "advertise-url"), Map.entry("AW_RUNNER_ONLY", "runner-only"));

    /**
     * Builds the configuration from the environment and the command line. Flags: {@code --host}, {@code --port},
     * {@code --data-dir}, {@code --db-url}, {@code --allowed-hosts}, {@code --allowed-origins},
     * {@code --trusted-proxies}, {@code --legacy-query-credentials}, {@code --secure-cookies},
     * {@code --session-hours}, {@code --max-payload-bytes}, {@code --browse-roots}, {@code --git-credential-origins},
     * {@code --max-file-bytes}, {@code --update-url}, {@code --runtime-dir}, {@code --source-dir},
     * {@code --update-max-bytes}, {@code --update-public-key}, {@code --history-home} (comma list of home folders whose CLI histories are indexed;
     * default the server's HOME), {@code --history-index} (true/false), {@code --web-push-subject} (the VAPID
     * contact, {@code mailto:} or {@code https:}), {@code --web-push-allow-loopback-http} (tests and development only:
     * accept {@code http://127.0.0.1:<port>} push endpoints), {@code --project-roots} (comma list of folders projects
     * may lie in; default the home folder), {@code --outbound-allow} (comma list of {@code host:port} endpoints
     * allowed although loopback or private); each has an {@code AW_*} environment twin.
     */
    public static ServerConfig from(Map<String, String> env, List<String> args) {
        Map<String, String> v = new java.util.HashMap<>();
        Map<String, String> envNames = ENV_NAMES;
        envNames.forEach((e, k) -> {
            String val = env.get(e);
            if (val != null && !val.isBlank()) {
                v.put(k, val);
            }
        });
        List<String> rest = new ArrayList<>(args);
        while (!rest.isEmpty()) {
            String a = rest.removeFirst();
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument: " + a);
            }
            String name = a.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (name.equals("legacy-query-credentials") || name.equals("secure-cookies")
                    || name.equals("web-push-allow-loopback-http") || name.equals("runner-only")) {
                value = "true";
            } else if (rest.isEmpty()) {
                throw new IllegalArgumentException("--" + name + " needs a value");
            } else {
                value = rest.removeFirst();
            }
            if (!envNames.containsValue(name)) {
                throw new IllegalArgumentException("unknown option --" + name);
            }
            v.put(name, value);
        }
        ServerConfig d = defaults();
        Path home = home(env);
        Path dataDir = v.containsKey("data-dir") ? Path.of(expandHome(v.get("data-dir"), home))
                : home.resolve(".agent-workspace");
        EngineConfig engine = EngineConfig.create(dataDir).withJdbcUrl(v.get("db-url"));
        if (v.containsKey("max-concurrent-runs")) {
            engine = engine.withRuns(engine.runs().withLimits(parseInt(v.get("max-concurrent-runs"),
                    "max-concurrent-runs"), engine.runs().perProviderLimits()));
        }
        if (v.containsKey("max-run-output-bytes")) {
            long max = parseLong(v.get("max-run-output-bytes"), "max-run-output-bytes");
            if (max < engine.runs().maxLineBytes()) {
                throw new IllegalArgumentException("max-run-output-bytes must be at least "
                        + engine.runs().maxLineBytes() + " (the longest line)");
            }
            engine = engine.withRuns(engine.runs().withOutputLimits(engine.runs().maxLineBytes(), max,
                    engine.runs().maxStderrBytes()));
        }
        if (v.containsKey("run-retention-days")) {
            int days = parseInt(v.get("run-retention-days"), "run-retention-days");
            if (days < 1) {
                throw new IllegalArgumentException("run-retention-days must be at least 1");
            }
            engine = engine.withRunRetention(engine.runRetention().withMaxAge(Duration.ofDays(days)));
        }
        if (v.containsKey("run-retention-count")) {
            int count = parseInt(v.get("run-retention-count"), "run-retention-count");
            if (count < 1) {
                throw new IllegalArgumentException("run-retention-count must be at least 1");
            }
            engine = engine.withRunRetention(engine.runRetention().withMaxCount(count));
        }
        if (v.containsKey("max-runs-per-account") || v.containsKey("max-queued-runs-per-account")) {
            int active = v.containsKey("max-runs-per-account")
                    ? parseInt(v.get("max-runs-per-account"), "max-runs-per-account")
                    : engine.runs().maxActivePerAccount();
            int queued = v.containsKey("max-queued-runs-per-account")
                    ? parseInt(v.get("max-queued-runs-per-account"), "max-queued-runs-per-account")
                    : engine.runs().maxQueuedPerAccount();
            if (active < 1 || queued < 0) {
                throw new IllegalArgumentException("max-runs-per-account must be at least 1, "
                        + "max-queued-runs-per-account at least 0");
            }
            engine = engine.withRuns(engine.runs().withAccountLimits(queued, active));
        }
        if (v.containsKey("history-home")) {
            List<Path> homes = new ArrayList<>();
            for (String h : list(v.get("history-home"))) {
                Path p = Path.of(expandHome(h, home));
                if (!p.isAbsolute()) {
                    throw new IllegalArgumentException("--history-home needs absolute folders");
                }
                homes.add(p);
            }
            if (homes.isEmpty()) {
                throw new IllegalArgumentException("--history-home needs at least one folder");
            }
            engine = engine.withHistoryHomes(homes);
        }
        if (v.containsKey("history-index")) {
            engine = engine.withHistoryIndex(bool(v.get("history-index")));
        }
        if (v.containsKey("web-push-subject")) {
            engine = engine.withWebPush(engine.webPush().withSubject(v.get("web-push-subject").strip()));
        }
        if (v.containsKey("web-push-allow-loopback-http")) {
            engine = engine.withWebPush(engine.webPush().withAllowLoopbackHttp(
                    bool(v.get("web-push-allow-loopback-http"))));
        }
        if (v.containsKey("project-roots")) {
            engine = engine.withAccess(engine.access().withProjectRoots(folders(v.get("project-roots"),
                    "project-roots", home)));
        }
        if (v.containsKey("outbound-allow")) {
            engine = engine.withAccess(engine.access().withOutboundAllow(list(v.get("outbound-allow"))));
        }
        if (v.containsKey("session-hours")) {
            engine = engine.withAuth(engine.auth().withSessionLifetime(
                    Duration.ofHours(parseInt(v.get("session-hours"), "session-hours"))));
        }
        return new ServerConfig(v.getOrDefault("host", d.host()),
                v.containsKey("port") ? parseInt(v.get("port"), "port") : d.port(), engine,
                list(v.get("allowed-hosts")), list(v.get("allowed-origins")), list(v.get("trusted-proxies")),
                bool(v.get("legacy-query-credentials")), bool(v.get("secure-cookies")),
                v.containsKey("max-payload-bytes") ? parseInt(v.get("max-payload-bytes"), "max-payload-bytes")
                        : d.maxPayloadBytes(), d.maxHeaderBytes(), d.shutdownGrace(),
                v.containsKey("browse-roots") ? browseRoots(v.get("browse-roots"), home) : List.of(home),
                v.containsKey("git-credential-origins") ? list(v.get("git-credential-origins"))
                        : d.gitCredentialOrigins(),
                v.containsKey("max-file-bytes") ? fileLimits(parseInt(v.get("max-file-bytes"), "max-file-bytes"))
                        : d.fileLimits(), agent(v, home), update(v, dataDir, home), connections(v),
                nodeRole(v));
    }

    /** {@code --advertise-url} (an {@code http(s)} base URL) and {@code --runner-only} (true/false). */
    private static NodeRole nodeRole(Map<String, String> v) {
        return new NodeRole(v.containsKey("advertise-url") ? v.get("advertise-url").strip() : null,
                v.containsKey("runner-only") && bool(v.get("runner-only")));
    }

    /**
     * {@code --max-connections}, {@code --max-connections-per-address}, {@code --head-timeout-seconds},
     * {@code --idle-timeout-seconds}, {@code --max-streams-per-account}: the connection limits
     * ({@link ConnectionLimits}).
     */
    private static ConnectionLimits connections(Map<String, String> v) {
        ConnectionLimits c = ConnectionLimits.defaults();
        if (v.containsKey("max-connections")) {
            c = c.withMaxConnections(parseInt(v.get("max-connections"), "max-connections"));
        }
        if (v.containsKey("max-connections-per-address")) {
            c = c.withMaxPerAddress(parseInt(v.get("max-connections-per-address"), "max-connections-per-address"));
        }
        if (v.containsKey("head-timeout-seconds")) {
            c = c.withHeadTimeout(Duration.ofSeconds(parseInt(v.get("head-timeout-seconds"), "head-timeout-seconds")));
        }
        if (v.containsKey("idle-timeout-seconds")) {
            c = c.withIdleTimeout(Duration.ofSeconds(parseInt(v.get("idle-timeout-seconds"), "idle-timeout-seconds")));
        }
        if (v.containsKey("max-streams-per-account")) {
            c = c.withMaxStreamsPerAccount(parseInt(v.get("max-streams-per-account"), "max-streams-per-account"));
        }
        return c;
    }

    /**
     * {@code --cli-path} is a comma list of {@code provider=path} (or a bare path for every provider);
     * {@code --clone-allowed-hosts} a comma list of hosts; {@code --github-api-url} a URL;
     * {@code --trust-local-project-paths} true/false; {@code --provider-env} a comma list of
     * {@code provider:NAME=VALUE} ({@code *} for every provider) added to the CLIs' environments.
     */
    private static AgentSettings agent(Map<String, String> v, Path home) {
        AgentSettings a = AgentSettings.defaults();
        if (v.containsKey("cli-path")) {
            Map<String, Path> bins = new java.util.HashMap<>();
            for (String item : list(v.get("cli-path"))) {
                int eq = item.indexOf('=');
                bins.put(eq < 0 ? "*" : item.substring(0, eq).strip(),
                        Path.of(expandHome(eq < 0 ? item : item.substring(eq + 1).strip(), home)));
            }
            a = a.withBinaries(bins);
        }
        if (v.containsKey("clone-allowed-hosts") || v.containsKey("github-api-url")) {
            a = a.withClone(v.containsKey("clone-allowed-hosts") ? list(v.get("clone-allowed-hosts"))
                    : a.cloneAllowedHosts(), a.insecureCloneHosts(), v.containsKey("github-api-url")
                    ? java.net.URI.create(v.get("github-api-url").strip()) : a.githubApiUrl());
        }
        if (v.containsKey("provider-env")) {
            Map<String, Map<String, String>> env = new java.util.HashMap<>();
            for (String item : list(v.get("provider-env"))) {
                int colon = item.indexOf(':');
                int eq = item.indexOf('=');
                if (colon < 1 || eq < colon + 2) {
                    throw new IllegalArgumentException("--provider-env items are provider:NAME=VALUE");
                }
                env.computeIfAbsent(item.substring(0, colon), k -> new java.util.HashMap<>())
                        .put(item.substring(colon + 1, eq), item.substring(eq + 1));
            }
            a = a.withProviderEnv(env);
        }
        if (v.containsKey("trust-local-project-paths")) {
            a = a.withTrustLocalProjectPaths(bool(v.get("trust-local-project-paths")));
        }
        return a;
    }


    /**
     * {@code --update-url} the manifest of runtime packages (http/https), {@code --runtime-dir} the runtime directory
     * (default {@code <data-dir>/runtime}), {@code --source-dir} the source checkout of a {@code git} install
     * (default: found above the server's code), {@code --update-max-bytes} the largest package (256 MiB),
     * {@code --update-public-key} the Ed25519 key the manifest must be signed with (base64).
     */
    private static UpdateSettings update(Map<String, String> v, Path dataDir, Path home) {
        UpdateSettings u = UpdateSettings.defaults(dataDir);
        if (v.containsKey("update-url")) {
            try {
                u = u.withManifestUrl(new java.net.URI(v.get("update-url").strip()));
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException("--update-url is not a URL");
            }
        }
        if (v.containsKey("runtime-dir")) {
            Path p = Path.of(expandHome(v.get("runtime-dir").strip(), home));
            if (!p.isAbsolute()) {
                throw new IllegalArgumentException("--runtime-dir needs an absolute folder");
            }
            u = u.withRuntimeDir(p);
        }
        if (v.containsKey("source-dir")) {
            Path p = Path.of(expandHome(v.get("source-dir").strip(), home));
            if (!p.isAbsolute()) {
                throw new IllegalArgumentException("--source-dir needs an absolute folder");
            }
            u = u.withSourceDir(p);
        }
        if (v.containsKey("update-public-key")) {
            u = u.withPublicKey(UpdateSettings.parsePublicKey(v.get("update-public-key")));
        }
        if (v.containsKey("update-max-bytes")) {
            try {
                u = u.withMaxPackageBytes(Long.parseLong(v.get("update-max-bytes").strip()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("update-max-bytes must be a number");
            }
        }
        return u;
    }

    /** A comma-separated list of absolute folders ({@code ~} expanded), at least one. */
    private static List<Path> folders(String s, String option, Path home) {
        List<Path> out = new ArrayList<>();
        for (String part : s.split(",")) {
            String p = part.strip();
            if (!p.isEmpty()) {
                Path path = Path.of(expandHome(p, home));
                if (!path.isAbsolute()) {
                    throw new IllegalArgumentException("--" + option + " needs absolute folders");
                }
                out.add(path);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--" + option + " needs at least one folder");
        }
        return out;
    }

    /** A comma-separated list of absolute folders; {@code ~} and {@code ~/...} are expanded. */
    private static List<Path> browseRoots(String s, Path home) {
        List<Path> roots = new ArrayList<>();
        for (String part : s.split(",")) {
            String p = part.strip();
            if (!p.isEmpty()) {
                roots.add(Path.of(expandHome(p, home)));
            }
        }
        if (roots.isEmpty()) {
            throw new IllegalArgumentException("browse-roots needs at least one folder");
        }
        return roots;
    }

    private static FileLimits fileLimits(int maxFileBytes) {
        if (maxFileBytes < 1024) {
            throw new IllegalArgumentException("max-file-bytes must be at least 1024");
        }
        FileLimits d = FileLimits.defaults();
        return new FileLimits(maxFileBytes, maxFileBytes, d.maxEntries());
    }

    private static String expandHome(String p, Path home) {
        return p.equals("~") || p.startsWith("~/") ? home + p.substring(1) : p;
    }

    /**
     * The one home folder of the service: {@code $HOME} of its environment, else the
     * JVM's {@code user.home} when it has none. The data folder ({@code ~/.agent-workspace}), {@code ~} in options, the browse root,
     * the CLIs' histories and the CLIs' own HOME all start here, so a changed {@code HOME} moves all of them together.
     */
    public static Path home(Map<String, String> env) {
        String h = env.get("HOME");
        // the rule of the engine's ProviderPaths (where the CLIs and their histories live), so both agree
        return Path.of(h != null && !h.isBlank() ? h : System.getProperty("user.home")).toAbsolutePath().normalize();
    }

    private static int parseInt(String s, String name) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number");
        }
    }

    private static long parseLong(String s, String name) {
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number");
        }
    }

    private static boolean bool(String s) {
        return s != null && (s.equalsIgnoreCase("true") || s.equals("1") || s.equalsIgnoreCase("yes"));
    }

    private static Set<String> list(String s) {
        if (s == null || s.isBlank()) {
            return Set.of();
        }
        return Arrays.stream(s.split(",")).map(String::strip).filter(x -> !x.isEmpty()).collect(Collectors.toSet());
    }

    private static Set<String> lower(Set<String> s) {
        return s.stream().map(x -> x.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
    }
}
