package org.agentworkspace.providers.qwen;

import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviderFactory;

/** Service entry for {@link QwenProvider}. */
public final class QwenProviderFactory implements AgentProviderFactory {
    @Override
    public AgentProvider create() {
        return new QwenProvider();
    }
}
