package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Lines found by the word-at-a-time newline scan are exactly those a byte-by-byte split finds. */
class LineReaderTest {
    @TempDir
    Path tmp;

    /** Bytes that look like '\n' to a careless word test: 0x0A with high bits set, 0x0B, 0x09, 0x8A, 0xFF, 0x00. */
    private static final byte[] TRICKY = {0x0B, 0x09, (byte) 0x8A, (byte) 0xFF, 0x00, 0x1A, 0x4A, (byte) 0xCA, 'x'};

    @Test
    void randomLinesAtEveryAlignmentAndChunkSize() throws Exception {
        Random r = new Random(7);
        for (int round = 0; round < 200; round++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            List<byte[]> expected = new ArrayList<>();
            int lines = 1 + r.nextInt(40);
            for (int i = 0; i < lines; i++) {
                int len = r.nextInt(4) == 0 ? r.nextInt(300) : r.nextInt(20);
                byte[] line = new byte[len];
                for (int k = 0; k < len; k++) {
                    line[k] = TRICKY[r.nextInt(TRICKY.length)];
                }
                expected.add(line);
                out.writeBytes(line);
                out.write('\n');
            }
            boolean unterminated = r.nextBoolean();
            byte[] tail = unterminated ? new byte[] {'t', (byte) 0x8A, 'l'} : new byte[0];
            out.writeBytes(tail);
            Path f = tmp.resolve("lines-" + round + ".jsonl");
            Files.write(f, out.toByteArray());
            int chunk = 1 + r.nextInt(64);
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                LineReader reader = new LineReader(ch, 0, 1 << 20, chunk);
                long offset = 0;
                for (byte[] want : expected) {
                    LineReader.Line got = reader.next();
                    assertArrayEquals(want, Arrays.copyOfRange(got.bytes(), got.off(), got.off() + got.len()),
                            "round " + round + ", chunk " + chunk);
                    assertEquals(offset, got.offset());
                    offset += want.length + 1;
                    assertEquals(offset, got.end());
                }
                LineReader.Line last = reader.next();
                if (unterminated) {
                    assertFalse(last.terminated());
                    assertArrayEquals(tail, Arrays.copyOfRange(last.bytes(), last.off(), last.off() + last.len()));
                    assertNull(reader.next());
                } else {
                    assertNull(last);
                }
            }
        }
    }
}
