package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.MessagePage;
import org.agentworkspace.api.history.SessionSummary;

/**
 * A generated 20+ MB claude session shaped like the real ones (big attachment/snapshot lines between the messages):
 * the cheap summary touches only both ends, a page keeps only its window, a full scan streams it in well under the
 * time a UI can wait. Timings are printed; the bounds are generous for a shared 2-core machine.
 */
class LargeFileTest {
    @TempDir
    Path home;

    @Test
    void twentyMegabytesStreamFast() throws Exception {
        String sid = "0f0f0f0f-1111-4222-8333-444444444444";
        Path file = home.resolve(".claude/projects/-tmp-big/" + sid + ".jsonl");
        Files.createDirectories(file.getParent());
        String snapshot = "x".repeat(100_000);
        String answer = "lorem ipsum dolor sit amet ".repeat(40);
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        int turns = 0;
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"sessionId\":\"" + sid + "\"}\n");
            while (Files.size(file) < 20L * 1024 * 1024 || turns < 10) {
                Instant t = t0.plusSeconds(turns * 10L);
                w.write("{\"parentUuid\":null,\"isSidechain\":false,\"type\":\"user\",\"message\":{\"role\":\"user\","
                        + "\"content\":\"question " + turns + "\"},\"uuid\":\"u" + turns + "\",\"timestamp\":\"" + t
                        + "\",\"cwd\":\"/tmp/big project\",\"sessionId\":\"" + sid + "\"}\n");
                w.write("{\"type\":\"attachment\",\"attachment\":{\"type\":\"prompt_snapshot\",\"systemPrompt\":[\""
                        + snapshot + "\"]},\"uuid\":\"s" + turns + "\",\"timestamp\":\"" + t + "\",\"cwd\":\"/tmp/big"
                        + " project\",\"sessionId\":\"" + sid + "\"}\n");
                w.write("{\"parentUuid\":\"u" + turns + "\",\"isSidechain\":false,\"type\":\"assistant\",\"message\":"
                        + "{\"id\":\"msg" + turns + "\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
                        + "\"" + answer + turns + "\"}],\"usage\":{\"input_tokens\":10,\"output_tokens\":5}},\"uuid\":"
                        + "\"a" + turns + "\",\"timestamp\":\"" + t.plusSeconds(1) + "\",\"cwd\":\"/tmp/big project\","
                        + "\"sessionId\":\"" + sid + "\"}\n");
                turns++;
                if (turns % 50 == 0) {
                    w.flush();
                }
            }
            w.write("{\"type\":\"ai-title\",\"aiTitle\":\"A long conversation\",\"sessionId\":\"" + sid + "\"}\n");
        }
        long size = Files.size(file);
        assertTrue(size >= 20L * 1024 * 1024);
        HistoryReader r = HistoryReaders.create().get("claude");
        SessionFile f = r.discover(home).get(0);

        long before = r.stats().recordsRead();
        long start = System.nanoTime();
        SessionSummary peek = r.summarize(f);
        Duration peekTime = Duration.ofNanos(System.nanoTime() - start);
        long peekRecords = r.stats().recordsRead() - before;
        assertEquals("/tmp/big project", peek.projectPath());
        assertEquals("question 0", peek.firstPrompt());
        assertEquals("A long conversation", peek.title());
        assertEquals(t0.plusSeconds((turns - 1) * 10L + 1), peek.lastActivity());
        assertNull(peek.messageCount(), "a peek does not count");
        assertTrue(peekRecords < 20, "the peek parsed " + peekRecords + " records of " + turns * 3);

        start = System.nanoTime();
        MessagePage page = r.messages(f, 50, 0);
        Duration pageTime = Duration.ofNanos(System.nanoTime() - start);
        assertEquals(turns * 2, page.total());
        assertEquals(50, page.messages().size());
        List<HistoryMessage> ms = page.messages();
        assertEquals("assistant/text: " + answer + (turns - 1), Fixtures.describe(ms.get(49)));
        assertEquals("user/text: question " + (turns - 25), Fixtures.describe(ms.get(0)));

        start = System.nanoTime();
        SessionSummary full = r.scan(f);
        Duration scanTime = Duration.ofNanos(System.nanoTime() - start);
        assertEquals(turns * 2, full.messageCount());
        assertEquals(turns * 15L, full.usage().total());

        System.err.printf("history LargeFileTest: %.1f MB, %d turns: summarize %d ms, page %d ms, scan %d ms%n",
                size / 1048576.0, turns, peekTime.toMillis(), pageTime.toMillis(), scanTime.toMillis());
        assertTrue(peekTime.toMillis() < 2_000, "summarize took " + peekTime);
        assertTrue(pageTime.toMillis() < 10_000, "page took " + pageTime);
        assertTrue(scanTime.toMillis() < 10_000, "scan took " + scanTime);
    }

    @Test
    void aTailThatIsOneLongRecordFallsBackToTheFileTime() throws Exception {
        String sid = "0f0f0f0f-1111-4222-8333-555555555555";
        Path file = home.resolve(".claude/projects/-tmp-big/" + sid + ".jsonl");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\"type\":\"user\",\"uuid\":\"u\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"cwd\":"
                + "\"/p\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n"
                + "{\"type\":\"attachment\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"blob\":\""
                + "z".repeat(700_000) + "\"}\n");
        HistoryReader r = HistoryReaders.create().get("claude");
        SessionFile f = r.discover(home).get(0);
        SessionSummary peek = r.summarize(f);
        assertEquals("/p", peek.projectPath());
        assertEquals("hi", peek.firstPrompt());
        assertEquals(f.modified(), peek.lastActivity());
        assertEquals(Instant.parse("2026-01-01T00:00:01Z"), r.scan(f).lastActivity());
    }
}
