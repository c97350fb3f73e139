package org.agentworkspace.api;

/**
 * The stable error codes of the error envelope. Codes never change meaning once released; docs/errors.md lists
 * each with its HTTP status.
 */
public final class ErrorCodes {
    private ErrorCodes() {
    }

    // 400
    public static final String VALIDATION_FAILED = "VALIDATION_FAILED";
    public static final String INVALID_JSON = "INVALID_JSON";
    public static final String UNKNOWN_SCOPE = "UNKNOWN_SCOPE";
    // 401
    public static final String AUTH_REQUIRED = "AUTH_REQUIRED";
    public static final String INVALID_CREDENTIALS = "INVALID_CREDENTIALS";
    public static final String INVALID_TOKEN = "INVALID_TOKEN";
    public static final String INVALID_API_KEY = "INVALID_API_KEY";
    public static final String API_KEY_REQUIRED = "API_KEY_REQUIRED";
    public static final String INVALID_STREAM_TICKET = "INVALID_STREAM_TICKET";
    public static final String QUERY_CREDENTIALS_DISABLED = "QUERY_CREDENTIALS_DISABLED";
    // 403
    public static final String SETUP_COMPLETE = "SETUP_COMPLETE";
    public static final String SETUP_TOKEN_REQUIRED = "SETUP_TOKEN_REQUIRED";
    public static final String INSUFFICIENT_SCOPE = "INSUFFICIENT_SCOPE";
    public static final String ADMIN_REQUIRED = "ADMIN_REQUIRED";
    public static final String SESSION_REQUIRED = "SESSION_REQUIRED";
    public static final String ORIGIN_REJECTED = "ORIGIN_REJECTED";
    public static final String HOST_REJECTED = "HOST_REJECTED";
    // 404 / 405
    public static final String ROUTE_NOT_FOUND = "ROUTE_NOT_FOUND";
    public static final String METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED";
    // 410
    public static final String FAMILY_RETIRED = "FAMILY_RETIRED";
    public static final String NOT_FOUND = "NOT_FOUND";
    public static final String USER_NOT_FOUND = "USER_NOT_FOUND";
    public static final String API_KEY_NOT_FOUND = "API_KEY_NOT_FOUND";
    // 409
    public static final String CONFLICT = "CONFLICT";
    public static final String USERNAME_TAKEN = "USERNAME_TAKEN";
    // 413 / 415 / 431
    public static final String PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE";
    public static final String UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE";
    public static final String HEADERS_TOO_LARGE = "HEADERS_TOO_LARGE";
    // 429
    public static final String RATE_LIMITED = "RATE_LIMITED";
    // 500 / 503
    public static final String INTERNAL_ERROR = "INTERNAL_ERROR";
    public static final String STORE_UNAVAILABLE = "STORE_UNAVAILABLE";
}
