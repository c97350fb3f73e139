package org.agentworkspace.core.runs;

/**
 * Carries out a request of kind {@code kind} for a run held by this engine, made on this node or another one
 * ({@link RunEngine#request}). Runs on the caller's thread (local) or on the node's request worker (remote): it must
 * return quickly.
 */
@FunctionalInterface
public interface RunRequestHandler {
    /**
     * @return the result given to the requester
     * @throws WorkspaceException a refusal, given to the requester as the same exception type, code and message
     */
    String handle(String runId, String payload);
}
