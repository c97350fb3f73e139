package org.agentworkspace.core.providers;

/**
 * The content of a catalog file (UTF-8). A missing file reads as empty content with {@code exists} false.
 */
public record ConfigFileContent(String fileId, String path, String content, boolean exists) {
}
