package org.agentworkspace.core.files;

/**
 * Documented limits of the file API. Going over one is answered with a clear code, never a crash:
 * {@code FILE_TOO_LARGE} for reads and writes, {@code TOO_MANY_ENTRIES} for listings.
 *
 * @param maxReadBytes largest file returned by a read; default 10 MiB
 * @param maxWriteBytes largest content accepted by a write or create; default 10 MiB
 * @param maxEntries most entries in one directory listing; default 10,000
 */
public record FileLimits(long maxReadBytes, long maxWriteBytes, int maxEntries) {
    public static final long DEFAULT_MAX_READ_BYTES = 10L << 20;
    public static final long DEFAULT_MAX_WRITE_BYTES = 10L << 20;
    public static final int DEFAULT_MAX_ENTRIES = 10_000;

    public FileLimits {
        if (maxReadBytes < 1 || maxWriteBytes < 1 || maxEntries < 1) {
            throw new IllegalArgumentException("limits must be positive");
        }
        if (maxReadBytes > Integer.MAX_VALUE - 16 || maxWriteBytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("byte limits must fit in an array");
        }
    }

    /** The defaults above. */
    public static FileLimits defaults() {
        return new FileLimits(DEFAULT_MAX_READ_BYTES, DEFAULT_MAX_WRITE_BYTES, DEFAULT_MAX_ENTRIES);
    }
}
