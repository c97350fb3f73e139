package org.agentworkspace.core.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/**
 * The in-memory journal and the one {@code Last-Event-ID} rule: numbering, replay then live without a loss or a
 * repeat, the bound on what is kept, the end, interruptible waits.
 */
class MemoryJournalTest {
    record Entry(long seq, String text) {
    }

    static List<Entry> drain(JournalCursor<Entry> c) throws InterruptedException {
        List<Entry> out = new ArrayList<>();
        while (true) {
            Optional<Entry> e = c.poll(Duration.ofSeconds(5));
            if (e.isEmpty()) {
                assertTrue(c.finished(), "a reader of an ended journal finishes instead of timing out");
                return out;
            }
            out.add(e.get());
        }
    }

    @Test
    void aReaderGetsTheKeptEntriesThenTheNewOnesExactlyOnceInOrder() throws Exception {
        MemoryJournal<Entry> j = new MemoryJournal<>(100);
        for (int i = 0; i < 10; i++) {
            String t = "line " + i;
            j.append(seq -> new Entry(seq, t));
        }
        assertEquals(10, j.newest());
        JournalCursor<Entry> c = j.follow(4);
        Thread writer = Thread.ofVirtual().start(() -> {
            for (int i = 10; i < 50; i++) {
                String t = "line " + i;
                j.append(seq -> new Entry(seq, t));
                Thread.yield();
            }
            j.end(seq -> new Entry(seq, "done"));
        });
        List<Entry> got = drain(c);
        writer.join();
        assertEquals(47, got.size());
        for (int i = 0; i < got.size(); i++) {
            assertEquals(5 + i, got.get(i).seq());
        }
        assertEquals("done", got.getLast().text());
        assertEquals(51, c.lastSeq());
        assertEquals(0, j.append(seq -> new Entry(seq, "late")), "nothing is appended after the end");
        assertEquals(List.of(), drain(j.follow(51)), "a reader at the end finishes at once");
    }

    @Test
    void onlyTheNewestAreKeptAndAReaderBeforeThemContinuesFromTheOldestKept() throws Exception {
        MemoryJournal<Entry> j = new MemoryJournal<>(3);
        for (int i = 1; i <= 10; i++) {
            j.append(seq -> new Entry(seq, "x"));
        }
        j.end();
        assertEquals(List.of(8L, 9L, 10L), j.kept().stream().map(Entry::seq).toList());
        assertEquals(List.of(8L, 9L, 10L), drain(j.follow(0)).stream().map(Entry::seq).toList());
        assertThrows(IllegalArgumentException.class, () -> j.follow(-1));
    }

    @Test
    void aWaitingReaderIsWokenByAnAppendAndCanBeInterrupted() throws Exception {
        MemoryJournal<Entry> j = new MemoryJournal<>(10);
        JournalCursor<Entry> c = j.follow(0);
        assertEquals(Optional.empty(), c.poll(Duration.ofMillis(30)));
        assertFalse(c.finished(), "an open journal is not finished");
        AtomicReference<Object> got = new AtomicReference<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                got.set(c.poll(Duration.ofSeconds(30)));
            } catch (InterruptedException e) {
                got.set(e);
            }
        });
        Thread.sleep(50);
        long t0 = System.nanoTime();
        j.append(seq -> new Entry(seq, "now"));
        reader.join(5000);
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos());
        assertEquals(Optional.of(new Entry(1, "now")), got.get());

        Thread waiting = Thread.ofVirtual().start(() -> {
            try {
                got.set(c.poll(Duration.ofSeconds(30)));
            } catch (InterruptedException e) {
                got.set(e);
            }
        });
        Thread.sleep(50);
        waiting.interrupt();
        waiting.join(5000);
        assertTrue(got.get() instanceof InterruptedException, String.valueOf(got.get()));
        j.append(seq -> new Entry(seq, "after"));
        assertEquals(Optional.of(new Entry(2, "after")), c.poll(Duration.ofSeconds(1)), "the interrupt lost nothing");
    }

    @Test
    void theLastEventIdRuleResumesAfterAnIdTheJournalHandedOutAndIgnoresAnythingElse() {
        assertEquals(7, LastEventId.resumeAfter("7", 10, 0));
        assertEquals(7, LastEventId.resumeAfter(" 7 ", 10, 0));
        assertEquals(0, LastEventId.resumeAfter("0", 10, 5), "0 is an id: resume after it (replay all)");
        assertEquals(10, LastEventId.resumeAfter("10", 10, 0));
        for (String junk : new String[] {"", "abc", "-1", "+3", "1.5", "0x10", "99999999999999999999", "11"}) {
            assertEquals(5, LastEventId.resumeAfter(junk, 10, 5), "'" + junk + "' is as if absent");
        }
        assertEquals(5, LastEventId.resumeAfter(null, 10, 5));
        MemoryJournal<Entry> j = new MemoryJournal<>(10);
        j.append(seq -> new Entry(seq, "a"));
        j.append(seq -> new Entry(seq, "b"));
        assertEquals(1, j.resume("1", 0).lastSeq());
        assertEquals(0, j.resume("junk", 0).lastSeq());
        assertEquals(2, j.resume("3", 2).lastSeq(), "beyond the newest: where the stream starts without one");
    }
}
