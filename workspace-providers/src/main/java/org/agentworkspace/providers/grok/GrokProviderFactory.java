package org.agentworkspace.providers.grok;

import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviderFactory;

/** Service entry for {@link GrokProvider}. */
public final class GrokProviderFactory implements AgentProviderFactory {
    @Override
    public AgentProvider create() {
        return new GrokProvider();
    }
}
