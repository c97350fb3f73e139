package org.agentworkspace.api.files;

/**
 * Stable error codes of the file API (and of paths handed to the VCS API). Each code is always raised with the
 * same {@link org.agentworkspace.api.WorkspaceException} subtype, written next to it; docs/errors.md and the
 * OpenAPI document list them with their HTTP status.
 */
public final class FileErrorCodes {
    private FileErrorCodes() {
    }

    /** {@code Forbidden}: the path is absolute, contains {@code ..}, or its real location leaves the root. */
    public static final String PATH_OUTSIDE_PROJECT = "PATH_OUTSIDE_PROJECT";
    /**
     * {@code Validation}: the path is malformed (NUL or other control character, backslash, too long, a broken
     * or looping symbolic link on the way, or the project root where an entry is required).
     */
    public static final String INVALID_PATH = "INVALID_PATH";
    /** {@code Forbidden}: a host path given to the folder browser is outside every allowed browse root. */
    public static final String PATH_NOT_ALLOWED = "PATH_NOT_ALLOWED";
    /** {@code PayloadTooLarge}: a file to read or write is over the documented size limit. */
    public static final String FILE_TOO_LARGE = "FILE_TOO_LARGE";
    /** {@code PayloadTooLarge}: a directory holds more entries than the documented listing limit. */
    public static final String TOO_MANY_ENTRIES = "TOO_MANY_ENTRIES";
    /** {@code NotFound}: the path (or the folder it should go into) does not exist. */
    public static final String FILE_NOT_FOUND = "FILE_NOT_FOUND";
    /** {@code Conflict}: create or rename onto a path that already exists. */
    public static final String FILE_EXISTS = "FILE_EXISTS";
    /** {@code Validation}: the operation needs a file but the path names a directory. */
    public static final String NOT_A_FILE = "NOT_A_FILE";
    /** {@code Validation}: the operation needs a directory but the path names a file. */
    public static final String NOT_A_DIRECTORY = "NOT_A_DIRECTORY";
    /** {@code Validation}: a folder to delete holds a tree deeper than the service walks; nothing was deleted. */
    public static final String TREE_TOO_DEEP = "TREE_TOO_DEEP";

    /** Old name of {@link #INVALID_PATH}. */
    @Deprecated(forRemoval = true)
    public static final String PATH_INVALID = INVALID_PATH;
    /** Old name of {@link #FILE_EXISTS}. */
    @Deprecated(forRemoval = true)
    public static final String ALREADY_EXISTS = FILE_EXISTS;
}
