package org.agentworkspace.api;

import java.util.Objects;

/**
 * The closed family of failures the engine reports to its callers. Each subtype maps to exactly one HTTP status
 * in the server; {@link #code()} is the stable machine code written into the error envelope
 * ({@code {success:false,error:{code,message}}}). The message is written for the client, so it must never carry
 * secrets, stack traces or host paths the caller did not supply.
 */
public abstract sealed class WorkspaceException extends RuntimeException
        permits WorkspaceException.Validation, WorkspaceException.Unauthenticated, WorkspaceException.Forbidden,
        WorkspaceException.NotFound, WorkspaceException.Conflict, WorkspaceException.PayloadTooLarge,
        WorkspaceException.UnsupportedMediaType, WorkspaceException.RateLimited, WorkspaceException.Unavailable, WorkspaceException.Gone {

    private static final long serialVersionUID = 1L;
    private final String code;

    private WorkspaceException(String code, String message, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause, false, false);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** Stable machine code, for example {@code VALIDATION_FAILED}; see {@link ErrorCodes}. */
    public String code() {
        return code;
    }

    /** The request is malformed or violates a rule (HTTP 400). */
    public static final class Validation extends WorkspaceException {
        private static final long serialVersionUID = 1L;

        public Validation(String code, String message) {
            super(code, message, null);
        }

        public static Validation of(String message) {
            return new Validation(ErrorCodes.VALIDATION_FAILED, message);
        }
    }

    /** No usable credential was presented (HTTP 401). */
    public static final class Unauthenticated extends WorkspaceException {
        private static final long serialVersionUID = 1L;

        public Unauthenticated(String code, String message) {
            super(code, message, null);
        }
    }

    /** The caller is known but may not do this (HTTP 403). */
    public static final class Forbidden extends WorkspaceException {
        private static final long serialVersionUID = 1L;

        public Forbidden(String code, String message) {
            super(code, message, null);
        }
    }

    /** The named resource does not exist, or is not visible to the caller (HTTP 404). */
    public static final class NotFound extends WorkspaceException {
        private static final long serialVersionUID = 1L;

        public NotFound(String code, String message) {
            super(code, message, null);
        }
    }

    /** The request conflicts with the current state (HTTP 409). */
    public static final class Conflict extends WorkspaceException {
        private static final long serialVersionUID = 1L;

        public Conflict(String code, String message) {
            super(code, message, null);
        }
    }

    /** The request body or an uploaded value is over a documented limit (HTTP 413). */
    public static final class PayloadTooLarge extends WorkspaceException {
        private static final long serialVersionUID = 1L;

        public PayloadTooLarge(String message) {
            super(ErrorCodes.PAYLOAD_TOO_LARGE, message, null);
        }

        /** Over a limit that has its own code (for example a file over the read limit, {@code FILE_TOO_LARGE}). */
        public PayloadTooLarge(String code, String message) {
            super(code, message, null);
        }
    }

    /** The request body is not of a media type the route accepts (HTTP 415). */
    public static final class UnsupportedMediaType extends WorkspaceException {
        private static final long serialVersionUID = 1L;

        public UnsupportedMediaType(String message) {
            super(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, message, null);
        }
    }

    /** Too many attempts; the caller may retry after {@link #retryAfterSeconds()} (HTTP 429). */
    public static final class RateLimited extends WorkspaceException {
        private static final long serialVersionUID = 1L;
        private final long retryAfterSeconds;

        public RateLimited(String message, long retryAfterSeconds) {
            this(ErrorCodes.RATE_LIMITED, message, retryAfterSeconds);
        }

        /** With a more specific code than {@code RATE_LIMITED} (e.g. {@code TOO_MANY_CONNECTIONS}). */
        public RateLimited(String code, String message, long retryAfterSeconds) {
            super(code, message, null);
            this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
        }

        public long retryAfterSeconds() {
            return retryAfterSeconds;
        }
    }

    /** A dependency the request needs is not available right now (HTTP 503). */
    public static final class Unavailable extends WorkspaceException {
        private static final long serialVersionUID = 1L;

        public Unavailable(String code, String message, Throwable cause) {
            super(code, message, cause);
        }
    }

    /** The resource family was retired and is no longer served (HTTP 410). */
    public static final class Gone extends WorkspaceException {
        private static final long serialVersionUID = 1L;

        public Gone(String code, String message) {
            super(code, message, null);
        }
    }
}
