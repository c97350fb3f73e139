package org.agentworkspace.core.agent;

import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import org.agentworkspace.api.provider.PermissionMode;

/**
 * How agent runs are launched; docs/agent-runs.md and docs/configuration.md describe each setting.
 *
 * @param binaries               an operator-configured binary (or a directory holding it) per provider id; the key
 *                               {@code *} applies to every provider. A configured path is used <em>instead of</em>
 *                               the usual search ({@code <dataDir>/cli-bin}, then PATH), so an operator (or a test)
 *                               pins exactly which binary runs
 * @param providerEnv            variables added last to a provider's child environment ({@code *} for all), e.g.
 *                               {@code HOME} for an isolated CLI home
 * @param permissionMode         the non-interactive permission mode of API-started runs (default
 *                               {@link PermissionMode#BYPASS}: nobody can answer a prompt)
 * @param credentials            where a run's provider credential comes from; {@code null} (the default) for the
 *                               engine's provider-credential store (the run's account's own key, then the
 *                               service-wide key: docs/provider-management.md §4). An embedder may give its own
 *                               source instead (it then counts as the service-wide credential)
 * @param projects               resolves {@code projectId}
 * @param trustLocalProjectPaths honour {@code projectPath} on {@code POST /api/automation/run} from local trusted
 *                               callers (default true; see docs/agent-runs.md for "trusted")
 * @param cloneAllowedHosts      hosts ({@code host} or {@code host:port}) a {@code githubUrl} may name (default
 *                               {@code github.com})
 * @param insecureCloneHosts     test-only: hosts ({@code host:port}) that may be cloned over plain http and may
 *                               resolve to loopback/private addresses (default none)
 * @param githubApiUrl           the GitHub REST API base for pull requests (default {@code https://api.github.com})
 */
public record AgentSettings(Map<String, Path> binaries, Map<String, Map<String, String>> providerEnv,
                            PermissionMode permissionMode, ProviderCredentialsSource credentials,
                            ProjectResolver projects, boolean trustLocalProjectPaths, Set<String> cloneAllowedHosts,
                            Set<String> insecureCloneHosts, URI githubApiUrl) {
    public AgentSettings {
        binaries = Map.copyOf(Objects.requireNonNull(binaries, "binaries"));
        providerEnv = providerEnv.entrySet().stream()
                .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, e -> Map.copyOf(e.getValue())));
        Objects.requireNonNull(permissionMode, "permissionMode");
        Objects.requireNonNull(projects, "projects");
        cloneAllowedHosts = lower(cloneAllowedHosts);
        insecureCloneHosts = lower(insecureCloneHosts);
        Objects.requireNonNull(githubApiUrl, "githubApiUrl");
    }

    public static AgentSettings defaults() {
        return new AgentSettings(Map.of(), Map.of(), PermissionMode.BYPASS, null,
                ProjectResolver.none(), true, Set.of("github.com"), Set.of(), URI.create("https://api.github.com"));
    }

    public AgentSettings withBinaries(Map<String, Path> b) {
        return new AgentSettings(b, providerEnv, permissionMode, credentials, projects, trustLocalProjectPaths,
                cloneAllowedHosts, insecureCloneHosts, githubApiUrl);
    }

    public AgentSettings withProviderEnv(Map<String, Map<String, String>> e) {
        return new AgentSettings(binaries, e, permissionMode, credentials, projects, trustLocalProjectPaths,
                cloneAllowedHosts, insecureCloneHosts, githubApiUrl);
    }

    public AgentSettings withCredentials(ProviderCredentialsSource c) {
        return new AgentSettings(binaries, providerEnv, permissionMode, c, projects, trustLocalProjectPaths,
                cloneAllowedHosts, insecureCloneHosts, githubApiUrl);
    }

    public AgentSettings withProjects(ProjectResolver p) {
        return new AgentSettings(binaries, providerEnv, permissionMode, credentials, p, trustLocalProjectPaths,
                cloneAllowedHosts, insecureCloneHosts, githubApiUrl);
    }

    public AgentSettings withTrustLocalProjectPaths(boolean on) {
        return new AgentSettings(binaries, providerEnv, permissionMode, credentials, projects, on,
                cloneAllowedHosts, insecureCloneHosts, githubApiUrl);
    }

    public AgentSettings withClone(Set<String> allowed, Set<String> insecure, URI apiUrl) {
        return new AgentSettings(binaries, providerEnv, permissionMode, credentials, projects,
                trustLocalProjectPaths, allowed, insecure, apiUrl);
    }

    private static Set<String> lower(Set<String> s) {
        return s.stream().map(x -> x.strip().toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
    }
}
