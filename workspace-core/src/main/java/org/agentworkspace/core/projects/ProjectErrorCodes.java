package org.agentworkspace.core.projects;

/**
 * Error codes of the project registry. Paths given to quick-start also fail with
 * {@link org.agentworkspace.api.files.FileErrorCodes} codes ({@code INVALID_PATH}, {@code PATH_NOT_ALLOWED},
 * {@code NOT_A_DIRECTORY}).
 */
public final class ProjectErrorCodes {
    private ProjectErrorCodes() {
    }

    /** {@code NotFound}: no registered project has this name. */
    public static final String PROJECT_NOT_FOUND = "PROJECT_NOT_FOUND";
    /** {@code NotFound}: the project is registered but its folder no longer exists. */
    public static final String DIRECTORY_NOT_FOUND = "DIRECTORY_NOT_FOUND";
}
