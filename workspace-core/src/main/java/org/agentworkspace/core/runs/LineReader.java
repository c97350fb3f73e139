package org.agentworkspace.core.runs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * Splits a child's output into lines ({@code \n}, a trailing {@code \r} dropped) with bounded memory: a line longer
 * than {@code maxLineBytes} keeps its first {@code maxLineBytes} bytes and is flagged; the rest is skipped up to the
 * next newline. Invalid UTF-8 becomes U+FFFD. Not thread-safe: one reader thread per stream.
 */
final class LineReader {
    /** One line: its text, how many bytes it really had (without the terminator), and whether it was cut. */
    record Line(String text, long bytes, boolean truncated) {
    }

    private final InputStream in;
    private final int maxLineBytes;
    private final IntConsumer onRead;
    private final byte[] buf = new byte[64 * 1024];
    private int pos;
    private int limit;
    private byte[] line = new byte[256];
    private int length;
    private long total;

    /**
     * @param onRead called with the byte count of every read from the stream (activity and accounting)
     */
    LineReader(InputStream in, int maxLineBytes, IntConsumer onRead) {
        this.in = in;
        this.maxLineBytes = maxLineBytes;
        this.onRead = onRead;
    }

    /** The next line, or {@code null} at the end of the stream. A last line without a newline is returned too. */
    Line next() throws IOException {
        length = 0;
        total = 0;
        boolean any = false;
        while (true) {
            if (pos == limit) {
                int n = in.read(buf);
                if (n < 0) {
                    return any ? finish() : null;
                }
                onRead.accept(n);
                pos = 0;
                limit = n;
                continue;
            }
            any = true;
            int nl = -1;
            for (int i = pos; i < limit; i++) {
                if (buf[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            int end = nl < 0 ? limit : nl;
            add(pos, end - pos);
            pos = nl < 0 ? limit : nl + 1;
            if (nl >= 0) {
                return finish();
            }
        }
    }

    private void add(int from, int count) {
        total += count;
        int room = maxLineBytes - length;
        int take = Math.min(room, count);
        if (take <= 0) {
            return;
        }
        if (length + take > line.length) {
            line = Arrays.copyOf(line, Math.min(maxLineBytes, Math.max(line.length * 2, length + take)));
        }
        System.arraycopy(buf, from, line, length, take);
        length += take;
    }

    private Line finish() {
        boolean truncated = total > length;
        int n = length;
        long bytes = total;
        if (!truncated && n > 0 && line[n - 1] == '\r') {
            n--;
            bytes--;
        }
        String text = new String(line, 0, n, StandardCharsets.UTF_8);
        if (line.length > 64 * 1024) {
            line = new byte[256];
        }
        return new Line(text, bytes, truncated);
    }
}
