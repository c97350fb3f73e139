package org.agentworkspace.core.system;

/**
 * Stable error codes of self-update and restart. {@link #UPDATE_IN_PROGRESS} is an HTTP answer; the others end an
 * update stream as its {@code error} event (the status in docs/errors.md is what they would be as an answer).
 */
public final class UpdateErrorCodes {
    /** 409: an update is running, or one finished and the restart it asked for is pending. */
    public static final String UPDATE_IN_PROGRESS = "UPDATE_IN_PROGRESS";
    /** 409: this install mode is not updated from inside ({@code docker}: pull a new image; {@code npm-global}). */
    public static final String UPDATE_NOT_SUPPORTED = "UPDATE_NOT_SUPPORTED";
    /** 409: nothing to update from: no update URL ({@code runtime-dir}) or no source checkout found ({@code git}). */
    public static final String UPDATE_NOT_CONFIGURED = "UPDATE_NOT_CONFIGURED";
    /** 503: the manifest or package could not be fetched (connection, HTTP status, timeout), or git fetch failed. */
    public static final String UPDATE_SOURCE_UNAVAILABLE = "UPDATE_SOURCE_UNAVAILABLE";
    /** 503: the manifest is not the expected JSON (version, url, sha256). */
    public static final String UPDATE_MANIFEST_INVALID = "UPDATE_MANIFEST_INVALID";
    /**
     * 503: an update key is configured and the manifest's signature ({@code <manifest URL>.sig}) is missing, malformed
     * or not by that key.
     */
    public static final String UPDATE_SIGNATURE_INVALID = "UPDATE_SIGNATURE_INVALID";
    /** 503: the package's SHA-256 differs from the manifest's. */
    public static final String UPDATE_CHECKSUM_MISMATCH = "UPDATE_CHECKSUM_MISMATCH";
    /** 503: the package is not a zip of a server (bad archive, an entry leaving its folder, no workspace-server.jar). */
    public static final String UPDATE_PACKAGE_INVALID = "UPDATE_PACKAGE_INVALID";
    /** 413: the package (or its unpacked content) is over the configured limit. */
    public static final String UPDATE_PACKAGE_TOO_LARGE = "UPDATE_PACKAGE_TOO_LARGE";
    /** 409: the source checkout has uncommitted changes to tracked files. */
    public static final String UPDATE_LOCAL_CHANGES = "UPDATE_LOCAL_CHANGES";
    /** 409: the checkout's branch and its upstream have diverged: a fast-forward is impossible. */
    public static final String UPDATE_NOT_FAST_FORWARD = "UPDATE_NOT_FAST_FORWARD";
    /** 409: the checkout is on a detached HEAD or its branch has no upstream. */
    public static final String UPDATE_NO_UPSTREAM = "UPDATE_NO_UPSTREAM";
    /** 503: the git program is not installed. */
    public static final String GIT_UNAVAILABLE = "GIT_UNAVAILABLE";
    /** 500: writing the new version failed locally (disk full, permissions); nothing was switched. */
    public static final String UPDATE_FAILED = "UPDATE_FAILED";

    private UpdateErrorCodes() {
    }
}
