package org.agentworkspace.api.history;

import java.util.List;
import java.util.Objects;

/**
 * A page of a session's messages, paged from the END of the conversation, the same way for every provider.
 *
 * <p>Messages are numbered 0..total-1 in chronological order (oldest first). A request {@code (limit, offset)}
 * counts {@code offset} messages back from the newest: the page is the messages with index in
 * {@code [max(0, total - offset - limit), total - offset)}, returned in chronological order (oldest first, so a chat
 * view appends them as they are). {@code offset = 0} is the newest page; the next older page is
 * {@code offset + messages.size()}. {@code hasMore} is true when older messages exist before the page's first one.
 * {@code offset >= total} gives an empty page with {@code hasMore = false}; {@code limit = 0} gives an empty page
 * whose {@code hasMore} says whether anything lies at or before that position.
 */
public record MessagePage(List<HistoryMessage> messages, int total, boolean hasMore, int offset, int limit) {
    public MessagePage {
        messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
        if (total < 0 || offset < 0 || limit < 0) {
            throw new IllegalArgumentException("total, offset and limit must not be negative");
        }
    }

    /** Index (in {@code [0, total]}) of the first message of the page {@code (limit, offset)} of {@code total}. */
    public static int startIndex(int total, int limit, int offset) {
        long end = Math.max(0L, (long) total - offset);
        return (int) Math.max(0L, end - limit);
    }

    /** Index (exclusive) of the end of the page {@code (limit, offset)} of {@code total}. */
    public static int endIndex(int total, int offset) {
        return (int) Math.max(0L, (long) total - offset);
    }

    /** Cuts the page {@code (limit, offset)} out of a complete chronological list. */
    public static MessagePage of(List<HistoryMessage> chronological, int limit, int offset) {
        int total = chronological.size();
        int end = endIndex(total, offset);
        int start = startIndex(total, limit, offset);
        return new MessagePage(chronological.subList(start, end), total, start > 0, offset, limit);
    }
}
