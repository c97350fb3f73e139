/** The {@code /shell} WebSocket: the terminal protocol over {@link org.agentworkspace.core.shell.ShellSessions}. */
package org.agentworkspace.server.shell;
