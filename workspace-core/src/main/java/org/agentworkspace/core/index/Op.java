package org.agentworkspace.core.index;

import java.util.List;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.core.history.SessionFacts;
import org.agentworkspace.core.history.SessionFile;

/** A write a reader hands to the {@link IndexWriter}, for the session {@link #key()}. */
sealed interface Op permits Op.InsertMessage, Op.UpdateMessage, Op.DropMessages, Op.MarkUnread, Op.Done {
    long key();

    /** {@code src}: the offset of the message's record when its tool payloads are clipped, else -1. */
    record InsertMessage(long key, long position, HistoryMessage m, long src) implements Op {
    }

    record UpdateMessage(long key, long position, HistoryMessage m, long src) implements Op {
    }

    record DropMessages(long key) implements Op {
    }

    record MarkUnread(long key) implements Op {
    }

    /** The end of a session's read: {@code offset} -1 makes the next read start over; null facts: unreadable. */
    record Done(long key, SessionFile file, long offset, SessionFacts facts, long corrupt, boolean fromStart,
                        long messages) implements Op {
    }

    /** Writes of one or more sessions, in order, with their size in chars (bounded while in flight). */
    record Chunk(List<Op> ops, long chars, int permits) {
    }
}
