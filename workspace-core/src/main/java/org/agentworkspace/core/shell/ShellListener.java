package org.agentworkspace.core.shell;

/**
 * The one consumer attached to a terminal. Called from the terminal's reader thread: implementations must not block
 * (queue and return), or the terminal stalls.
 */
public interface ShellListener {
    /** Terminal output; {@code offset} is the byte offset just after this chunk (the value to reattach from). */
    void onOutput(String data, long offset);

    /** The terminal's process ended with this exit code (128 + n for signal n). */
    void onExit(int exitCode);
}
