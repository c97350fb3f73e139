package org.agentworkspace.providers.claude;

import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviderFactory;

/** Service entry for {@link ClaudeProvider}. */
public final class ClaudeProviderFactory implements AgentProviderFactory {
    @Override
    public AgentProvider create() {
        return new ClaudeProvider();
    }
}
