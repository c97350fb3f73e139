package org.agentworkspace.core.providers;

/**
 * Error codes of provider management. The first group answers requests (with the HTTP status in the comment); the
 * second ends an install job ({@link InstallJob#error()}), never a request.
 */
public final class ProviderErrorCodes {
    private ProviderErrorCodes() {
    }

    /** 404: the provider id is not one of the built-in providers. */
    public static final String PROVIDER_NOT_FOUND = "PROVIDER_NOT_FOUND";
    /** 400: the provider cannot do this (MCP for grok, an npm install of cursor, a base URL for cursor). */
    public static final String UNSUPPORTED_CAPABILITY = "UNSUPPORTED_CAPABILITY";
    /** 400: the pasted callback URL holds no token, or names an error. */
    public static final String INVALID_OAUTH_CALLBACK = "INVALID_OAUTH_CALLBACK";
    /** 409: an install job of this provider is pending or running. */
    public static final String INSTALL_IN_PROGRESS = "INSTALL_IN_PROGRESS";
    /** 404: no such install job (unknown, of another provider, or finished more than the retention ago). */
    public static final String INSTALL_JOB_NOT_FOUND = "INSTALL_JOB_NOT_FOUND";
    /** 404: the file id is not in the provider's catalog. */
    public static final String CONFIG_FILE_NOT_FOUND = "CONFIG_FILE_NOT_FOUND";
    /** 400: the content does not parse in the file's format. */
    public static final String CONFIG_VALIDATION_FAILED = "CONFIG_VALIDATION_FAILED";
    /** 403: the catalog entry is read-only. */
    public static final String CONFIG_FILE_READ_ONLY = "CONFIG_FILE_READ_ONLY";
    /** 404: no MCP server of that name in that scope. */
    public static final String MCP_SERVER_NOT_FOUND = "MCP_SERVER_NOT_FOUND";

    /** Install job: no {@code node} on the server's PATH. */
    public static final String NODE_MISSING = "NODE_MISSING";
    /** Install job: no {@code npm} on the server's PATH. */
    public static final String NPM_MISSING = "NPM_MISSING";
    /** Install job: node does not satisfy the package's {@code engines.node} and none could be provided. */
    public static final String NODE_TOO_OLD = "NODE_TOO_OLD";
    /** Install job: npm failed (the log says why), or the binary is missing afterwards. */
    public static final String INSTALL_FAILED = "INSTALL_FAILED";
    /** Install job: npm took longer than the install timeout and was stopped. */
    public static final String INSTALL_TIMEOUT = "INSTALL_TIMEOUT";
}
