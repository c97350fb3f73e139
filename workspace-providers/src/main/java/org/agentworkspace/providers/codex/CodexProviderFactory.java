package org.agentworkspace.providers.codex;

import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviderFactory;

/** Service entry for {@link CodexProvider}. */
public final class CodexProviderFactory implements AgentProviderFactory {
    @Override
    public AgentProvider create() {
        return new CodexProvider();
    }
}
