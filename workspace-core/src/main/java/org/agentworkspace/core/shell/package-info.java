/**
 * Interactive terminals for {@code /shell}: PTY sessions owned by {@link org.agentworkspace.core.shell.ShellSessions},
 * with an output ring for replay after a reconnect, idle and detached reaping, per-user caps, and a whole-tree kill on
 * close. pty4j stays behind {@code Pty} so its names appear in this package only.
 */
package org.agentworkspace.core.shell;
