package org.agentworkspace.core.journal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * A journal kept in memory, for jobs that live in memory (install jobs, update jobs): entries numbered from 1, at
 * most {@code capacity} kept (the oldest are dropped; a reader that starts before the oldest kept one continues from
 * there), readers woken the moment an entry is appended. {@link #end} closes it: readers finish once they have read
 * the last entry, and nothing more is appended.
 *
 * @param <E> the entry type; {@link #append} builds each entry from its sequence number
 */
public final class MemoryJournal<E> implements EventJournal<E> {
    private record Kept<E>(long seq, E entry) {
    }

    private final int capacity;
    private final ArrayDeque<Kept<E>> kept = new ArrayDeque<>();
    private long newest;
    private boolean ended;

    /** @param capacity how many entries are kept (at least 1) */
    public MemoryJournal(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a journal keeps at least one entry");
        }
        this.capacity = capacity;
    }

    /**
     * Appends the entry {@code make} builds from the next sequence number.
     *
     * @return the entry's sequence number, or 0 when the journal has ended (nothing was appended)
     */
    public synchronized long append(LongFunction<? extends E> make) {
        if (ended) {
            return 0;
        }
        long seq = newest + 1;
        E e = make.apply(seq);
        newest = seq;
        kept.addLast(new Kept<>(seq, e));
        while (kept.size() > capacity) {
            kept.removeFirst();
        }
        notifyAll();
        return seq;
    }

    /** Appends a last entry and ends the journal; 0 when it had ended already. */
    public synchronized long end(LongFunction<? extends E> last) {
        long seq = append(last);
        end();
        return seq;
    }

    /** Ends the journal without another entry. */
    public synchronized void end() {
        ended = true;
        notifyAll();
    }

    public synchronized boolean ended() {
        return ended;
    }

    @Override
    public synchronized long newest() {
        return newest;
    }

    /** The entries kept now, oldest first. */
    public synchronized List<E> kept() {
        return kept.stream().map(Kept::entry).toList();
    }

    /**
     * The kept entries above {@code after}, waiting up to {@code wait} for one while there is none and the journal
     * has not ended; empty when none came.
     */
    public List<E> after(long after, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (this) {
            while (newest <= after && !ended) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return List.of();
                }
                wait(Math.max(1, left / 1_000_000));
            }
            List<E> out = new ArrayList<>();
            for (Kept<E> k : kept) {
                if (k.seq() > after) {
                    out.add(k.entry());
                }
            }
            return out;
        }
    }

    @Override
    public JournalCursor<E> follow(long after) {
        if (after < 0) {
            throw new IllegalArgumentException("a journal cursor starts at 0 or later");
        }
        return new Cursor(after);
    }

    private final class Cursor implements JournalCursor<E> {
        private final ArrayDeque<Kept<E>> buffer = new ArrayDeque<>();
        private long last;
        private boolean done;

        Cursor(long after) {
            this.last = after;
        }

        @Override
        public Optional<E> poll(Duration timeout) throws InterruptedException {
            if (buffer.isEmpty()) {
                fill(timeout);
            }
            Kept<E> k = buffer.poll();
            if (k == null) {
                return Optional.empty();
            }
            last = k.seq();
            return Optional.of(k.entry());
        }

        /** Copies every kept entry after the last one returned, waiting up to {@code timeout} for one. */
        private void fill(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            synchronized (MemoryJournal.this) {
                while (newest <= last) {
                    if (ended) {
                        done = true;
                        return;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    MemoryJournal.this.wait(Math.max(1, left / 1_000_000));
                }
                for (Kept<E> k : kept) {
                    if (k.seq() > last) {
                        buffer.addLast(k);
                    }
                }
            }
        }

        @Override
        public boolean finished() {
            if (!buffer.isEmpty()) {
                return false;
            }
            synchronized (MemoryJournal.this) {
                if (!done && ended && newest <= last) {
                    done = true;
                }
                return done;
            }
        }

        @Override
        public long lastSeq() {
            return last;
        }

        @Override
        public void close() {
            buffer.clear();
        }
    }
}
