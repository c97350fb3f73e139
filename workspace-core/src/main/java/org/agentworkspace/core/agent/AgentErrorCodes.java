package org.agentworkspace.core.agent;

/** Error codes of the agent-run routes ({@code /api/agent}, {@code /api/automation/run*}); listed in docs/errors.md. */
public final class AgentErrorCodes {
    /** 400: the provider id is not one of the loaded providers. */
    public static final String UNKNOWN_PROVIDER = "UNKNOWN_PROVIDER";
    /** 503: the provider's CLI binary was not found on this host. */
    public static final String PROVIDER_NOT_INSTALLED = "PROVIDER_NOT_INSTALLED";
    /** 400: {@code githubUrl} is not an allowed https repository URL (scheme, host, port, path, address). */
    public static final String INVALID_REPOSITORY_URL = "INVALID_REPOSITORY_URL";
    /** 400: {@code projectPath} is not an absolute path of an existing directory (or a usable clone target). */
    public static final String INVALID_PROJECT_PATH = "INVALID_PATH";
    /** 403: {@code projectPath} on the automation route from a caller that is not a local trusted caller. */
    public static final String PROJECT_PATH_NOT_TRUSTED = "PROJECT_PATH_NOT_TRUSTED";
    /** 404: {@code projectId} names no project. */
    public static final String PROJECT_NOT_FOUND = "PROJECT_NOT_FOUND";
    /** 404: no such run. */
    public static final String RUN_NOT_FOUND = "RUN_NOT_FOUND";
    /** 400: the clone of {@code githubUrl} failed (the message never carries the token). */
    public static final String CLONE_FAILED = "CLONE_FAILED";
    /** 400: {@code createPR} (or a push) needs a git token and none was given or stored. */
    public static final String GIT_TOKEN_REQUIRED = "GIT_TOKEN_REQUIRED";

    /** 404: a permission answer names no open request (unknown, answered, expired, or its run ended). */
    public static final String PERMISSION_REQUEST_NOT_FOUND = "PERMISSION_REQUEST_NOT_FOUND";

    private AgentErrorCodes() {
    }
}
