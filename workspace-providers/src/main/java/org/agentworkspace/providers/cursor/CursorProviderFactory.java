package org.agentworkspace.providers.cursor;

import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviderFactory;

/** Service entry for {@link CursorProvider}. */
public final class CursorProviderFactory implements AgentProviderFactory {
    @Override
    public AgentProvider create() {
        return new CursorProvider();
    }
}
