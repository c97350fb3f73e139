package org.agentworkspace.core.journal;

import java.time.Duration;
import java.util.Optional;

/**
 * A reader of one {@link EventJournal}: every entry after its starting sequence number exactly once, in order. One
 * thread at a time. A wait is interruptible: an interrupted reader throws {@link InterruptedException} and has lost
 * nothing (the entry it would have returned is returned by the next call).
 *
 * @param <E> the entry type
 */
public interface JournalCursor<E> extends AutoCloseable {
    /**
     * The next entry, waiting up to {@code timeout} for it.
     *
     * @return the entry; empty when the time is up (call again) or the journal has ended and every entry was
     *         returned ({@link #finished()})
     */
    Optional<E> poll(Duration timeout) throws InterruptedException;

    /** True once the journal ended and its last entry was returned; a journal that never ends is never finished. */
    boolean finished();

    /** The sequence number of the last entry returned (or the starting number): where a client resumes from. */
    long lastSeq();

    /** Releases the reader (it holds nothing between calls; closing only marks it closed). */
    @Override
    void close();

    /** A reader that never returns an entry and never finishes: a stream of no journal that stays open. */
    static <E> JournalCursor<E> idle(long at) {
        return new JournalCursor<>() {
            @Override
            public Optional<E> poll(Duration timeout) throws InterruptedException {
                Thread.sleep(Math.max(0, timeout.toMillis()));
                return Optional.empty();
            }

            @Override
            public boolean finished() {
                return false;
            }

            @Override
            public long lastSeq() {
                return at;
            }

            @Override
            public void close() {
            }
        };
    }
}
