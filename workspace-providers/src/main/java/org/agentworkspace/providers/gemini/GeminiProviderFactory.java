package org.agentworkspace.providers.gemini;

import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviderFactory;

/** Service entry for {@link GeminiProvider}. */
public final class GeminiProviderFactory implements AgentProviderFactory {
    @Override
    public AgentProvider create() {
        return new GeminiProvider();
    }
}
