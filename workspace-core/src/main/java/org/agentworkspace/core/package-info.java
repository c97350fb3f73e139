/** The engine facade ({@link org.agentworkspace.core.WorkspaceEngine}) and its configuration. */
package org.agentworkspace.core;
