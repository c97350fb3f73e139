package org.agentworkspace.core;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

import org.agentworkspace.api.provider.AgentProviders;

import org.agentworkspace.core.runs.RunSettings;

/**
 * Everything the engine needs to open. Built once from defaults, then file, environment and flags by the caller, and
 * validated here.
 *
 * @param dataDir        where the store, secrets and caches live (created with mode 0700 when missing)
 * @param jdbcUrl        {@code null} for the embedded SQLite store {@code <dataDir>/workspace.db}, or a
 *                       {@code jdbc:postgresql:} / {@code jdbc:sqlite:} URL
 * @param clock          time source (tests inject a fixed or offset clock)
 * @param auth           account, key and ticket settings
 * @param runs           run engine limits and timeouts
 * @param historyHomes   the home directories whose CLI histories are indexed; {@code null} for the engine's
 *                       {@code HOME} (the environment given to {@link WorkspaceEngine#open(EngineConfig, java.util.Map)})
 * @param historyIndex   whether the history index runs (project list, sessions, messages and search from history)
 * @param webPush        Web Push delivery (VAPID subject, loopback endpoints for tests, timeout, TTL)
 * @param runRetention   how long ended runs are kept (age and count) and how often the sweep runs
 * @param access         where projects may be and which non-public endpoints the service may connect to
 * @param providers      the provider adapters and their descriptors; {@code null} for those {@code ServiceLoader}
 *                       finds ({@link AgentProviders#load()}), the normal case. An embedding application (or a
 *                       test) that loads providers from its own class loader or module layer passes them here.
 */
public record EngineConfig(Path dataDir, String jdbcUrl, Clock clock, AuthSettings auth, RunSettings runs,
                           java.util.List<Path> historyHomes, boolean historyIndex,
                           org.agentworkspace.core.notifications.WebPushSettings webPush,
                           org.agentworkspace.core.runs.RunRetention runRetention, Access access,
                           AgentProviders providers) {
    public EngineConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(runs, "runs");
        Objects.requireNonNull(webPush, "webPush");
        Objects.requireNonNull(runRetention, "runRetention");
        Objects.requireNonNull(access, "access");
        dataDir = dataDir.toAbsolutePath().normalize();
        if (jdbcUrl != null && !(jdbcUrl.startsWith("jdbc:sqlite:") || jdbcUrl.startsWith("jdbc:postgresql:"))) {
            throw new IllegalArgumentException("database URL must start with jdbc:sqlite: or jdbc:postgresql:");
        }
        if (historyHomes != null) {
            historyHomes = historyHomes.stream().map(h -> h.toAbsolutePath().normalize()).toList();
        }
    }

    /** Defaults for a data directory: embedded SQLite, system clock, default auth and run settings. */
    public static EngineConfig create(Path dataDir) {
        return new EngineConfig(dataDir, null, Clock.systemUTC(), AuthSettings.defaults(), RunSettings.defaults(), null,
                true, org.agentworkspace.core.notifications.WebPushSettings.defaults(),
                org.agentworkspace.core.runs.RunRetention.defaults(), Access.defaults(), null);
    }

    public EngineConfig withJdbcUrl(String url) {
        return new EngineConfig(dataDir, url, clock, auth, runs, historyHomes, historyIndex, webPush, runRetention,
                access, providers);
    }

    public EngineConfig withClock(Clock c) {
        return new EngineConfig(dataDir, jdbcUrl, c, auth, runs, historyHomes, historyIndex, webPush, runRetention,
                access, providers);
    }

    public EngineConfig withAuth(AuthSettings a) {
        return new EngineConfig(dataDir, jdbcUrl, clock, a, runs, historyHomes, historyIndex, webPush, runRetention,
                access, providers);
    }

    public EngineConfig withRuns(RunSettings r) {
        return new EngineConfig(dataDir, jdbcUrl, clock, auth, r, historyHomes, historyIndex, webPush, runRetention,
                access, providers);
    }

    /** The homes whose CLI histories are indexed ({@code null}: the engine's HOME). */
    public EngineConfig withHistoryHomes(java.util.List<Path> homes) {
        return new EngineConfig(dataDir, jdbcUrl, clock, auth, runs, homes == null ? null : java.util.List.copyOf(homes),
                historyIndex, webPush, runRetention, access, providers);
    }

    /** Turns the history index on or off. */
    public EngineConfig withHistoryIndex(boolean on) {
        return new EngineConfig(dataDir, jdbcUrl, clock, auth, runs, historyHomes, on, webPush, runRetention,
                access, providers);
    }

    /** Web Push delivery settings. */
    public EngineConfig withWebPush(org.agentworkspace.core.notifications.WebPushSettings w) {
        return new EngineConfig(dataDir, jdbcUrl, clock, auth, runs, historyHomes, historyIndex, w, runRetention,
                access, providers);
    }

    /** These providers instead of those {@code ServiceLoader} finds (see the {@code providers} component). */
    public EngineConfig withProviders(AgentProviders p) {
        return new EngineConfig(dataDir, jdbcUrl, clock, auth, runs, historyHomes, historyIndex, webPush, runRetention,
                access, p);
    }

    /** Where projects may be, and which non-public endpoints may be reached ({@link Access}). */
    public EngineConfig withAccess(Access a) {
        return new EngineConfig(dataDir, jdbcUrl, clock, auth, runs, historyHomes, historyIndex, webPush, runRetention,
                a, providers);
    }

    /**
     * Rights over host state that do not belong to one account (docs/auth.md).
     *
     * @param projectRoots  folders under which projects and run working directories may be ({@code --project-roots};
     *                      {@code null}: the engine's HOME); see {@link org.agentworkspace.core.projects.ProjectRoots}
     * @param outboundAllow {@code host:port} endpoints the service may connect to although they are loopback,
     *                      private or link-local ({@code --outbound-allow}); see
     *                      {@link org.agentworkspace.core.network.OutboundPolicy}
     * @param resolver      how host names are resolved when a connection is checked (the system's by default)
     * @param cliFolders    configured CLI binaries or their folders (besides {@code PATH} and the install prefix):
     *                      no project may be in or around them
     */
    public record Access(java.util.List<Path> projectRoots, java.util.Set<String> outboundAllow,
                         org.agentworkspace.core.network.OutboundPolicy.Resolver resolver,
                         java.util.List<Path> cliFolders) {
        public Access {
            if (projectRoots != null) {
                if (projectRoots.isEmpty()) {
                    throw new IllegalArgumentException("at least one project root is needed");
                }
                for (Path p : projectRoots) {
                    if (!p.isAbsolute()) {
                        throw new IllegalArgumentException("project roots must be absolute folders: " + p);
                    }
                }
                projectRoots = projectRoots.stream().map(Path::normalize).toList();
            }
            outboundAllow = java.util.Set.copyOf(outboundAllow.stream()
                    .map(org.agentworkspace.core.network.OutboundPolicy::normaliseEntry).toList());
            Objects.requireNonNull(resolver, "resolver");
            cliFolders = java.util.List.copyOf(cliFolders);
        }

        /** Projects under HOME; public endpoints only; the system resolver. */
        public static Access defaults() {
            return new Access(null, java.util.Set.of(), org.agentworkspace.core.network.OutboundPolicy.SYSTEM,
                    java.util.List.of());
        }

        public Access withProjectRoots(java.util.List<Path> roots) {
            return new Access(roots, outboundAllow, resolver, cliFolders);
        }

        public Access withOutboundAllow(java.util.Set<String> allow) {
            return new Access(projectRoots, allow, resolver, cliFolders);
        }

        public Access withResolver(org.agentworkspace.core.network.OutboundPolicy.Resolver r) {
            return new Access(projectRoots, outboundAllow, r, cliFolders);
        }

        public Access withCliFolders(java.util.List<Path> folders) {
            return new Access(projectRoots, outboundAllow, resolver, folders);
        }

        /** The outbound policy these settings describe. */
        public org.agentworkspace.core.network.OutboundPolicy outbound() {
            return org.agentworkspace.core.network.OutboundPolicy.create(outboundAllow, resolver);
        }
    }

    /**
     * Authentication settings.
     *
     * @param sessionLifetime          lifetime of a login JWT (default 7 days)
     * @param ticketLifetime           lifetime of a stream ticket (default 30 seconds)
     * @param maxOutstandingTickets    unredeemed, unexpired tickets one user may hold (default 64)
     * @param accountFailureLimit      failed logins per account within {@code failureWindow} before 429 (default 5)
     * @param clientFailureLimit       failed logins per client address within {@code failureWindow} (default 20)
     * @param failureWindow            the sliding window for both limits (default 15 minutes)
     * @param hashingConcurrency       password hashes computed at once (argon2id needs 19 MiB each; default 2)
     */
    public record AuthSettings(Duration sessionLifetime, Duration ticketLifetime, int maxOutstandingTickets,
                               int accountFailureLimit, int clientFailureLimit, Duration failureWindow,
                               int hashingConcurrency) {
        public AuthSettings {
            requirePositive(sessionLifetime, "sessionLifetime");
            requirePositive(ticketLifetime, "ticketLifetime");
            requirePositive(failureWindow, "failureWindow");
            if (maxOutstandingTickets < 1 || accountFailureLimit < 1 || clientFailureLimit < 1
                    || hashingConcurrency < 1) {
                throw new IllegalArgumentException("auth limits must be at least 1");
            }
        }

        public static AuthSettings defaults() {
            return new AuthSettings(Duration.ofDays(7), Duration.ofSeconds(30), 64, 5, 20, Duration.ofMinutes(15), 2);
        }

        public AuthSettings withSessionLifetime(Duration d) {
            return new AuthSettings(d, ticketLifetime, maxOutstandingTickets, accountFailureLimit,
                    clientFailureLimit, failureWindow, hashingConcurrency);
        }

        public AuthSettings withLoginLimits(int perAccount, int perClient, Duration window) {
            return new AuthSettings(sessionLifetime, ticketLifetime, maxOutstandingTickets, perAccount, perClient,
                    window, hashingConcurrency);
        }

        private static void requirePositive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive");
            }
        }
    }

    /** How long ended runs are kept (docs/runs.md "Retention"). */
    public EngineConfig withRunRetention(org.agentworkspace.core.runs.RunRetention r) {
        return new EngineConfig(dataDir, jdbcUrl, clock, auth, runs, historyHomes, historyIndex, webPush, r,
                access, providers);
    }
}
