package org.agentworkspace.api.provider;

/**
 * The service interface through which providers are found ({@link java.util.ServiceLoader}): a module declares
 * {@code provides org.agentworkspace.api.provider.AgentProviderFactory with ...} (and, for the class path, a
 * {@code META-INF/services} entry). Implementations need a public no-argument constructor.
 */
public interface AgentProviderFactory {

    /** Creates the provider. Called once per {@link AgentProviders#load()}. */
    AgentProvider create();
}
