package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Damaged JSONL history: garbage, binary junk and a cut last line are skipped and counted, never fatal. */
class CorruptLinesTest {
    @TempDir
    Path tmp;

    private static final byte[] GARBAGE = "this is not json at all\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] BINARY = {0, 1, 2, (byte) 0xff, (byte) 0xfe, (byte) 0xc3, 0x28, '{', '"', 0, '\n'};
    private static final byte[] HALF_OBJECT = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"cont\n"
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] TWO_OBJECTS = "{\"a\":1} {\"b\":2}\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NOT_AN_OBJECT = "[1,2,3]\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] TRUNCATED_TAIL = "{\"type\":\"assistant\",\"uuid\":\"x\",\"message\":{\"content\":[{\"ty"
            .getBytes(StandardCharsets.UTF_8);

    /** Inserts damage after the first line and after the middle line, and a cut record at the end. */
    private static byte[] damage(byte[] original) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int firstNl = indexOf(original, 0);
        int middleNl = indexOf(original, original.length / 2);
        out.write(original, 0, firstNl + 1);
        out.writeBytes(GARBAGE);
        out.writeBytes(BINARY);
        out.writeBytes("\n\n   \n".getBytes(StandardCharsets.UTF_8));
        out.write(original, firstNl + 1, middleNl - firstNl);
        out.writeBytes(HALF_OBJECT);
        out.writeBytes(TWO_OBJECTS);
        out.writeBytes(NOT_AN_OBJECT);
        out.write(original, middleNl + 1, original.length - middleNl - 1);
        out.writeBytes(TRUNCATED_TAIL);
        return out.toByteArray();
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        throw new IllegalStateException("no newline");
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "codex", "gemini", "qwen"})
    void damagedLinesAreSkippedAndCounted(String provider) throws Exception {
        HistoryReader r = HistoryReaders.create().get(provider);
        Path home = Fixtures.home(tmp, provider, "tool-write");
        SessionFile f = r.discover(home).get(0);
        List<String> expected = Fixtures.describe(r.messages(f, 100, 0).messages());
        long corruptBefore = r.stats().corruptLines();

        byte[] original = Files.readAllBytes(f.path());
        Files.write(f.path(), damage(original));
        SessionFile damaged = r.discover(home).get(0);

        ReadResult res = r.readFrom(damaged, 0, HistorySink.discard());
        assertEquals(5, res.corruptLines(), "garbage, binary, half object, two objects, array");
        assertTrue(res.partialTail(), "cut last line");
        assertEquals(Files.size(f.path()) - TRUNCATED_TAIL.length, res.nextOffset(),
                "the cut line is left for a later read");
        assertEquals(expected, Fixtures.describe(r.messages(damaged, 100, 0).messages()));
        assertEquals(Fixtures.PROJECT, r.scan(damaged).projectPath());
        assertTrue(r.stats().corruptLines() >= corruptBefore + 5);
        assertTrue(r.stats().partialTails() >= 1);
    }

    @Test
    void aCutLineIsReadOnceItIsComplete() throws Exception {
        HistoryReader r = HistoryReaders.create().get("qwen");
        Path home = Fixtures.home(tmp, "qwen", "plain");
        SessionFile f = r.discover(home).get(0);
        ReadResult first = r.readFrom(f, 0, HistorySink.discard());
        String line = "{\"uuid\":\"late-1\",\"sessionId\":\"" + f.sessionId() + "\",\"timestamp\":"
                + "\"2026-11-21T23:40:00.000Z\",\"type\":\"user\",\"cwd\":\"/tmp/aw-project\",\"message\":{\"role\":"
                + "\"user\",\"parts\":[{\"text\":\"written in two pieces\"}]}}";
        int half = line.length() / 2;
        append(f.path(), line.substring(0, half));
        ReadResult cut = r.readFrom(f, first.nextOffset(), HistorySink.discard());
        assertTrue(cut.partialTail());
        assertEquals(first.nextOffset(), cut.nextOffset());
        assertEquals(0, cut.corruptLines());
        append(f.path(), line.substring(half) + "\n");
        Fixtures.Collecting sink = new Fixtures.Collecting();
        ReadResult done = r.readFrom(f, cut.nextOffset(), sink);
        assertFalse(done.partialTail());
        assertEquals(Files.size(f.path()), done.nextOffset());
        assertEquals(List.of("user/text: written in two pieces"), Fixtures.describe(sink.list()));
    }

    @Test
    void anUnterminatedLastLineThatParsesIsConsumed() throws Exception {
        HistoryReader r = HistoryReaders.create().get("claude");
        Path home = Fixtures.home(tmp, "claude", "plain");
        SessionFile f = r.discover(home).get(0);
        long size = Files.size(f.path());
        append(f.path(), "{\"type\":\"custom-title\",\"customTitle\":\"Named by hand\",\"sessionId\":\""
                + f.sessionId() + "\"}");
        ReadResult res = r.readFrom(f, size, HistorySink.discard());
        assertFalse(res.partialTail());
        assertEquals(Files.size(f.path()), res.nextOffset());
        assertEquals("Named by hand", res.facts().title());
    }

    @Test
    void oversizedLinesAreSkippedWithoutBeingHeld() throws Exception {
        Path file = tmp.resolve("lines.jsonl");
        StringBuilder big = new StringBuilder("{\"x\":\"");
        big.append("y".repeat(5000)).append("\"}\n");
        Files.writeString(file, "{\"a\":1}\n" + big + "{\"b\":2}\r\n" + big.substring(0, 3000));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            LineReader lr = new LineReader(ch, 0, 1000);
            LineReader.Line l1 = lr.next();
            assertEquals("{\"a\":1}", new String(l1.bytes(), l1.off(), l1.len(), StandardCharsets.UTF_8));
            assertEquals(0, l1.offset());
            LineReader.Line l2 = lr.next();
            assertTrue(l2.oversized());
            assertEquals(8, l2.offset());
            LineReader.Line l3 = lr.next();
            assertEquals("{\"b\":2}", new String(l3.bytes(), l3.off(), l3.len(), StandardCharsets.UTF_8),
                    "\\r\\n is one line end");
            assertTrue(l3.terminated());
            LineReader.Line l4 = lr.next();
            assertTrue(l4.oversized());
            assertFalse(l4.terminated());
            assertEquals(Files.size(file), l4.end());
            assertEquals(null, lr.next());
        }
    }

    private static void append(Path f, String s) throws Exception {
        Files.writeString(f, s, StandardOpenOption.APPEND);
    }
}
