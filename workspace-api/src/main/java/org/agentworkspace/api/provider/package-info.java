/**
 * The provider SPI: how the engine finds, launches and reads a coding-agent CLI. A provider turns a {@link
 * org.agentworkspace.api.provider.RunSpec} into a {@link org.agentworkspace.api.provider.LaunchPlan} (argv, the complete
 * child environment, files to write) and the CLI's native output into the sealed {@link
 * org.agentworkspace.api.provider.AgentEvent} family; implementations are found through {@link
 * org.agentworkspace.api.provider.AgentProviderFactory} and {@link java.util.ServiceLoader}.
 */
package org.agentworkspace.api.provider;
