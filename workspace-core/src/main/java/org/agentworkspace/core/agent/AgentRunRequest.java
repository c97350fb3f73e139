package org.agentworkspace.core.agent;

import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.core.runs.RunOwner;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * One agent run as a route asks for it.
 *
 * @param provider        provider id ({@code claude}, …)
 * @param prompt          the prompt (data, never an option)
 * @param projectDir      absolute, existing working directory
 * @param model           model id or {@code null}
 * @param resumeSessionId the CLI session to continue, or {@code null}
 * @param metadata        extra fields stored with the run (route, project id, user id …); plain JSON values, null allowed
 * @param permissionMode  the run's permission mode, or {@code null} for {@link AgentSettings#permissionMode()};
 *                        {@code default} on a CLI that can ask (claude) makes the run interactive: its permission
 *                        requests wait for an answer ({@link AgentRuns#permissions()})
 * @param accountId       the account the run is started for (the caller; a task's owner), whose own provider
 *                        credential the run uses before the service-wide one; {@code null} for a run of no account
 *                        (it gets the service-wide credential only)
 * @param owner           the typed owner stored in the run row's columns (visibility, the session index, filters);
 *                        {@code null}: the account and the session continued, nothing else
 */
public record AgentRunRequest(String provider, String prompt, Path projectDir, String model, String resumeSessionId,
                              Map<String, Object> metadata, PermissionMode permissionMode, Long accountId,
                              RunOwner owner) {
    public AgentRunRequest {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(projectDir, "projectDir");
        metadata = metadata == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(metadata));
        if (owner == null) {
            owner = new RunOwner(accountId, null, null, null, resumeSessionId);
        }
    }

    /** A run whose owner is its account (and the session it continues). */
    public AgentRunRequest(String provider, String prompt, Path projectDir, String model, String resumeSessionId,
                           Map<String, Object> metadata, PermissionMode permissionMode, Long accountId) {
        this(provider, prompt, projectDir, model, resumeSessionId, metadata, permissionMode, accountId, null);
    }

    /** A run of no account, in the settings' permission mode. */
    public AgentRunRequest(String provider, String prompt, Path projectDir, String model, String resumeSessionId,
                           Map<String, Object> metadata) {
        this(provider, prompt, projectDir, model, resumeSessionId, metadata, null, null, null);
    }

    /** A run of no account. */
    public AgentRunRequest(String provider, String prompt, Path projectDir, String model, String resumeSessionId,
                           Map<String, Object> metadata, PermissionMode permissionMode) {
        this(provider, prompt, projectDir, model, resumeSessionId, metadata, permissionMode, null, null);
    }
}
