package org.agentworkspace.core.index;

/** Error codes of the history index routes. */
public final class HistoryErrorCodes {
    private HistoryErrorCodes() {
    }

    /** {@code NotFound}: no indexed session has this id (in this project). */
    public static final String SESSION_NOT_FOUND = "SESSION_NOT_FOUND";
    /** {@code Conflict}: the provider keeps the session in a shared database the service does not modify. */
    public static final String SESSION_DELETE_UNSUPPORTED = "SESSION_DELETE_UNSUPPORTED";
    /** {@code Validation}: the search query holds no word to search for, or is too long. */
    public static final String INVALID_QUERY = "INVALID_QUERY";
}
