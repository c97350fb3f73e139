package org.agentworkspace.api.history;

import java.util.List;

/**
 * The provider ids whose history can be read, as plain strings (the same ids the rest of the service uses).
 */
public final class HistoryProviders {
    public static final String CLAUDE = "claude";
    public static final String CODEX = "codex";
    public static final String GEMINI = "gemini";
    public static final String QWEN = "qwen";
    public static final String CURSOR = "cursor";
    public static final String OPENCODE = "opencode";

    /** Every provider with a history reader, in a stable order. */
    public static final List<String> ALL = List.of(CLAUDE, CODEX, GEMINI, QWEN, CURSOR, OPENCODE);

    private HistoryProviders() {
    }

    /** Whether {@code id} is one of {@link #ALL}. */
    public static boolean isKnown(String id) {
        return ALL.contains(id);
    }
}
