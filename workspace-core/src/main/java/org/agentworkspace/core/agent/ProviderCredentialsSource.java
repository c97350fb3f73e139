package org.agentworkspace.core.agent;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.providers.ProviderCredentialStore;

/**
 * Where a run's provider credential (API key, base URL) comes from. The engine's
 * {@link ProviderCredentialStore} is the source of every server run: {@link #resolve} gives the run's account's own
 * key, else the service-wide key, else none (the CLI's own login; docs/provider-management.md §4). An embedder may
 * give its own source through {@link AgentSettings#withCredentials}; a plain {@link #credentialsFor} source counts as
 * service-wide. Never logged: {@link ProviderCredentials} masks its key.
 */
@FunctionalInterface
public interface ProviderCredentialsSource {
    /** The provider's credential when no account is considered. */
    ProviderCredentials credentialsFor(String providerId);

    /**
     * The credential a run of {@code providerId} started by account {@code accountId} (null: no account) uses, and
     * where it comes from.
     */
    default ProviderCredentialStore.Resolved resolve(String providerId, Long accountId) {
        ProviderCredentials c = credentialsFor(providerId);
        return new ProviderCredentialStore.Resolved(c, c.hasApiKey() ? ProviderCredentialStore.Source.SERVICE
                : ProviderCredentialStore.Source.NONE);
    }

    /** No stored credentials: every CLI uses its own login. */
    static ProviderCredentialsSource none() {
        return id -> ProviderCredentials.none();
    }
}
