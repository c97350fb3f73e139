package org.agentworkspace.api.history;

/**
 * Token counts as the CLI recorded them. {@code inputTokens} excludes cached input where the provider reports cached
 * input separately (claude, opencode); counts a provider does not report are 0.
 */
public record Usage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens) {
    public static final Usage ZERO = new Usage(0, 0, 0, 0);

    public Usage {
        if (inputTokens < 0 || outputTokens < 0 || cacheReadTokens < 0 || cacheWriteTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
    }

    /** Field-wise sum; {@code other} may be null. */
    public Usage plus(Usage other) {
        if (other == null) {
            return this;
        }
        return new Usage(inputTokens + other.inputTokens, outputTokens + other.outputTokens,
                cacheReadTokens + other.cacheReadTokens, cacheWriteTokens + other.cacheWriteTokens);
    }

    /** Sum of every count. */
    public long total() {
        return inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens;
    }
}
