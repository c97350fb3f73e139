package org.agentworkspace.core.runs;

/**
 * Rebuilds a run another node accepted and could not start (it died with the run queued) from the launch spec
 * stored with it ({@link RunEngine#withLaunchSpec}), so that this node can queue it under the same id. The request's
 * process is built here, its credential resolved again by account, as any start does.
 */
@FunctionalInterface
public interface RunTakeover {
    /**
     * @param runId the run's id (its parser is bound to it by the engine)
     * @param spec  the launch spec as stored
     * @return the request to queue
     * @throws RuntimeException the run cannot be started on this node (its project folder is not here, its
     *                          provider is unknown …): the message is the reason given with {@code node_lost}
     */
    RunRequest rebuild(String runId, String spec);
}
