package org.agentworkspace.server;

/**
 * How the server ends its process after a restart or a self-update asked for one: the one place that may call
 * {@link System#exit}. The real server ({@link Main}) uses {@link #SYSTEM}: the JVM's shutdown hook stops the web
 * server gracefully (in-flight requests get the grace period) and closes the engine, and the process exits with the
 * status, 42 for "start me again" (scripts/run.sh, or a service manager). Tests pass a hook that records the call.
 */
@FunctionalInterface
public interface ProcessExit {
    void exit(int status);

    /** {@link System#exit}: shutdown hooks run, then the process ends with {@code status}. */
    ProcessExit SYSTEM = System::exit;
}
