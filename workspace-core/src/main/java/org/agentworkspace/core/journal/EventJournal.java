package org.agentworkspace.core.journal;

/**
 * An append-only, replayable sequence of one job's events. Entries are numbered 1, 2, 3, … in the order they were
 * appended (a journal may have a gap where it was not written by this process, never a repeat); what is kept is
 * bounded by the journal's kind (a run's log and notifications by their store, in-memory jobs by their capacity).
 *
 * @param <E> the entry type; every entry knows its own sequence number
 */
public interface EventJournal<E> {
    /** The sequence number of the newest entry (0 when there is none yet): the largest id a reader can have seen. */
    long newest();

    /**
     * A reader of the entries with a sequence number above {@code after}: the kept ones first, then new ones as they
     * are appended, each exactly once and in order. A reader that starts before the oldest kept entry continues from
     * the oldest kept one.
     */
    JournalCursor<E> follow(long after);

    /**
     * A reader placed by a stream's {@code Last-Event-ID} ({@link LastEventId}): after the id it names when that is a
     * sequence number this journal has handed out, else after {@code absent} (where the stream starts without one).
     */
    default JournalCursor<E> resume(String lastEventId, long absent) {
        return follow(LastEventId.resumeAfter(lastEventId, newest(), absent));
    }
}
