package org.agentworkspace.core.providers;

/**
 * A config file of a provider's catalog.
 *
 * @param fileId   the opaque id clients use (never a path)
 * @param path     where it is, shown with {@code ~} for the home folder
 * @param label    a human-readable name
 * @param exists   whether the file exists
 * @param size     its size in bytes, or {@code null} when missing
 * @param format   {@code json}, {@code toml}, {@code env} or {@code text}: what a write is validated as
 * @param readOnly whether writes are refused
 */
public record ConfigFileEntry(String fileId, String path, String label, boolean exists, Long size, String format,
                              boolean readOnly) {
}
