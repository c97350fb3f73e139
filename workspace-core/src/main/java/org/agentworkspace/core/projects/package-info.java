/**
 * The project registry: folders on the host registered as projects
 * ({@link org.agentworkspace.core.projects.ProjectRegistry}), and the confined file and git access to them.
 */
package org.agentworkspace.core.projects;
