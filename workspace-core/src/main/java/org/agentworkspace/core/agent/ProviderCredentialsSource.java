package org.agentworkspace.core.agent;

import org.agentworkspace.api.provider.ProviderCredentials;

/**
 * Where a run's provider credential (API key, base URL) comes from. The provider-credential store plugs in here
 * ({@code credentialsFor(providerId)}); until it does, the default gives none, so each CLI uses its own login in
 * the child's HOME. Tests implement it to point the CLIs at the mock LLM. Never logged: {@link ProviderCredentials}
 * masks its key.
 */
@FunctionalInterface
public interface ProviderCredentialsSource {
    ProviderCredentials credentialsFor(String providerId);

    /** No stored credentials: every CLI uses its own login. */
    static ProviderCredentialsSource none() {
        return id -> ProviderCredentials.none();
    }
}
