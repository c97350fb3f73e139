package org.agentworkspace.core.shell;

/** Error codes of {@code /shell}, sent in {@code error} frames. */
public final class ShellErrorCodes {
    private ShellErrorCodes() {
    }

    /** {@code RateLimited} (429): the user already runs the maximum number of terminals. */
    public static final String TOO_MANY_SHELLS = "TOO_MANY_SHELLS";
    /** 429: the user already holds the maximum number of {@code /shell} connections. */
    public static final String TOO_MANY_CONNECTIONS = "TOO_MANY_CONNECTIONS";
    /** {@code NotFound}: no terminal of this user has this id (never existed, reaped, or another user's). */
    public static final String SHELL_NOT_FOUND = "SHELL_NOT_FOUND";
    /** {@code NotFound}: the provider CLI asked for as the command is not installed here. */
    public static final String PROVIDER_NOT_INSTALLED = "PROVIDER_NOT_INSTALLED";
    /** {@code Validation}: a message that is not one of the protocol's, or with bad fields. */
    public static final String INVALID_MESSAGE = "INVALID_MESSAGE";
    /** {@code Unavailable}: the terminal could not be started. */
    public static final String SHELL_START_FAILED = "SHELL_START_FAILED";
}
