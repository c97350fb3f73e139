/**
 * The version-control SPI: {@link org.agentworkspace.api.vcs.VcsFactory} opens a
 * {@link org.agentworkspace.api.vcs.Vcs} on a project's working tree; records carry requests and results. The git
 * implementation lives in the {@code org.agentworkspace.git} module and is found through {@code ServiceLoader}.
 */
package org.agentworkspace.api.vcs;
