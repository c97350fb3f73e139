package org.agentworkspace.providers.opencode;

import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviderFactory;

/** Service entry for {@link OpencodeProvider}. */
public final class OpencodeProviderFactory implements AgentProviderFactory {
    @Override
    public AgentProvider create() {
        return new OpencodeProvider();
    }
}
