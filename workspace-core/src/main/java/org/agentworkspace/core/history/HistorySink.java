package org.agentworkspace.core.history;

import org.agentworkspace.api.history.HistoryMessage;

/**
 * Receives the messages of a read, in chronological order.
 *
 * <p>Contract: a message whose {@code id} was delivered before (in this read or an earlier one of the same session)
 * replaces the earlier one in place, keeping its position. {@link #reset()} means the session's message list was
 * rewritten by the CLI (gemini rewrites its chat, a JSON document was re-read): everything delivered before for this
 * session is void, and the complete list follows.
 */
@FunctionalInterface
public interface HistorySink {
    void accept(HistoryMessage message);

    default void reset() {
    }

    /** A sink that drops everything (for reads that only want the facts). */
    static HistorySink discard() {
        return m -> {
        };
    }
}
