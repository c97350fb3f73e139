package org.agentworkspace.server.providers.acme;

import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviderFactory;

/** The SPI entry of the test-only eighth provider (registered in {@code eighth-provider/META-INF/services}). */
public final class AcmeProviderFactory implements AgentProviderFactory {
    @Override
    public AgentProvider create() {
        return new AcmeProvider();
    }
}
