package org.agentworkspace.core.system;

/** Ends an update with a stable code ({@link UpdateErrorCodes}) and a message for people. */
final class UpdateFailure extends Exception {
    private static final long serialVersionUID = 1L;
    private final String code;

    UpdateFailure(String code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    String code() {
        return code;
    }
}
