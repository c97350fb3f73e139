package org.agentworkspace.core.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class LineReaderTest {
    private static List<LineReader.Line> lines(byte[] input, int max) throws IOException {
        // a stream that hands out 7 bytes at a time, so lines straddle reads
        InputStream in = new ByteArrayInputStream(input) {
            @Override
            public int read(byte[] b) {
                return super.read(b, 0, Math.min(7, b.length));
            }
        };
        LineReader r = new LineReader(in, max, n -> { });
        List<LineReader.Line> out = new ArrayList<>();
        for (LineReader.Line l = r.next(); l != null; l = r.next()) {
            out.add(l);
        }
        assertNull(r.next());
        return out;
    }

    @Test
    void splitsOnNewlinesDropsCarriageReturnsAndKeepsALastUnterminatedLine() throws IOException {
        assertEquals(List.of(new LineReader.Line("one", 3, false), new LineReader.Line("", 0, false),
                        new LineReader.Line("two", 3, false), new LineReader.Line("three", 5, false)),
                lines("one\n\ntwo\r\nthree".getBytes(StandardCharsets.UTF_8), 1024));
        assertEquals(List.of(), lines(new byte[0], 1024));
    }

    @Test
    void cutsLongLinesAtTheLimitAndCountsTheirRealLength() throws IOException {
        String input = "x".repeat(5000) + "\nshort\n" + "y".repeat(2048) + "\n";
        assertEquals(List.of(new LineReader.Line("x".repeat(2048), 5000, true), new LineReader.Line("short", 5, false),
                new LineReader.Line("y".repeat(2048), 2048, false)),
                lines(input.getBytes(StandardCharsets.UTF_8), 2048));
    }

    @Test
    void invalidUtf8BecomesReplacementCharacters() throws IOException {
        byte[] input = {'a', (byte) 0xff, 'b', (byte) 0xc3, (byte) 0xa9, '\n'};
        assertEquals("a\uFFFDb\u00e9", lines(input, 1024).getFirst().text());
    }

    @Test
    void reportsEveryReadForActivityTracking() throws IOException {
        AtomicLong bytes = new AtomicLong();
        LineReader r = new LineReader(new ByteArrayInputStream("abc\ndef\n".getBytes(StandardCharsets.UTF_8)), 1024,
                bytes::addAndGet);
        while (r.next() != null) {
            // drain
        }
        assertEquals(8, bytes.get());
    }
}
