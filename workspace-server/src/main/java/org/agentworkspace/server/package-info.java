/** Entry point and routing of the Agent Workspace HTTP server. */
package org.agentworkspace.server;
