package org.agentworkspace.core.history;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * One session as found on disk by {@link HistoryReader#discover(Path)}.
 *
 * <p>{@code path} is the session's own file (claude, codex, gemini, qwen), the chat's {@code store.db} (cursor), or
 * the shared {@code opencode.db} (opencode: one SessionFile per session row, all with the same path).
 * {@code sessionId} is the CLI's native id. {@code size} and {@code modified} are what an index compares to notice a
 * change: the file's size and mtime; for cursor and opencode the database plus its {@code -wal}, and for opencode
 * {@code modified} is the session row's {@code time_updated}.
 */
public record SessionFile(String provider, Path home, Path path, String sessionId, long size, Instant modified) {
    public SessionFile {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(modified, "modified");
    }
}
