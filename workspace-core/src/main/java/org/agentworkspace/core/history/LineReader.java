package org.agentworkspace.core.history;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.Arrays;

/**
 * Reads '\n'-separated lines from a file channel starting at a byte offset, reporting each line's byte offset. A line
 * is held in memory only up to {@code maxLine} bytes; longer lines are consumed without being kept and reported as
 * oversized. The returned {@link Line} views are valid until the next call.
 */
final class LineReader {
    static final int CHUNK = 256 * 1024;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
    /**
     * One chunk buffer of {@link #CHUNK} bytes kept per thread between reads: a full read of a session takes it and
     * {@link #release() gives it back}, so reading 10,000 sessions does not allocate 10,000 buffers of 256 KiB (that
     * was a third of the history index's allocation, and every young collection it caused copied the messages in
     * flight). A reader opened while the thread's buffer is taken (a nested read) allocates its own.
     */
    private static final ThreadLocal<byte[]> SPARE = new ThreadLocal<>();

    private final FileChannel channel;
    private final int maxLine;
    private final byte[] chunk;
    private final ByteBuffer chunkBuffer;
    private long chunkStart;
    private int pos;
    private int limit;
    private boolean eof;
    private byte[] acc = new byte[8192];
    private int accLen;

    /** A line: bytes {@code [off, off + len)} of {@code bytes} (without the '\n' and a trailing '\r'). */
    record Line(byte[] bytes, int off, int len, long offset, long end, boolean terminated, boolean oversized) {
        boolean blank() {
            for (int i = off; i < off + len; i++) {
                byte b = bytes[i];
                if (b != ' ' && b != '\t' && b != '\r') {
                    return false;
                }
            }
            return true;
        }
    }

    LineReader(FileChannel channel, long start, int maxLine) throws IOException {
        this(channel, start, maxLine, CHUNK);
    }

    LineReader(FileChannel channel, long start, int maxLine, int chunkSize) throws IOException {
        byte[] spare = chunkSize == CHUNK ? SPARE.get() : null;
        if (spare != null) {
            SPARE.remove();
        }
        this.chunk = spare != null ? spare : new byte[chunkSize];
        this.chunkBuffer = ByteBuffer.wrap(chunk);
        this.channel = channel;
        this.maxLine = maxLine;
        this.chunkStart = start;
        channel.position(start);
    }

    /**
     * Gives the chunk buffer back to this thread for the next reader; no {@link Line} of this reader may be used
     * afterwards, nor the reader itself.
     */
    void release() {
        if (chunk.length == CHUNK) {
            SPARE.set(chunk);
        }
    }

    /**
     * Consumes the rest of the current line (up to and including the next '\n') without keeping it; returns the
     * offset after it, or -1 when the file ends first.
     */
    long skipLine() throws IOException {
        while (true) {
            if (pos >= limit && !fill()) {
                return -1;
            }
            int nl = indexOfNewline(pos, limit);
            if (nl >= 0) {
                pos = nl + 1;
                return chunkStart + pos;
            }
            pos = limit;
        }
    }

    /** The next line, or null at the end of the file. */
    Line next() throws IOException {
        if (pos >= limit && !fill()) {
            return null;
        }
        long start = chunkStart + pos;
        accLen = 0;
        boolean spans = false;
        boolean oversized = false;
        while (true) {
            int nl = indexOfNewline(pos, limit);
            if (nl >= 0) {
                int len = nl - pos;
                long end = chunkStart + nl + 1;
                if (!spans) {
                    if (len > maxLine) {
                        pos = nl + 1;
                        return new Line(chunk, 0, 0, start, end, true, true);
                    }
                    int off = pos;
                    pos = nl + 1;
                    return trimCr(new Line(chunk, off, len, start, end, true, false));
                }
                oversized = append(pos, len, oversized);
                pos = nl + 1;
                return trimCr(new Line(acc, 0, oversized ? 0 : accLen, start, end, true, oversized));
            }
            oversized = append(pos, limit - pos, oversized);
            spans = true;
            pos = limit;
            if (!fill()) {
                long end = chunkStart + pos;
                return trimCr(new Line(acc, 0, oversized ? 0 : accLen, start, end, false, oversized));
            }
        }
    }

    private boolean append(int from, int len, boolean oversized) {
        if (oversized) {
            return true;
        }
        if ((long) accLen + len > maxLine) {
            accLen = 0;
            return true;
        }
        if (accLen + len > acc.length) {
            acc = Arrays.copyOf(acc, Math.max(accLen + len, Math.min(maxLine, acc.length * 2)));
        }
        System.arraycopy(chunk, from, acc, accLen, len);
        accLen += len;
        return false;
    }

    private static Line trimCr(Line l) {
        if (l.len() > 0 && l.bytes()[l.off() + l.len() - 1] == '\r') {
            return new Line(l.bytes(), l.off(), l.len() - 1, l.offset(), l.end(), l.terminated(), l.oversized());
        }
        return l;
    }

    /**
     * The first '\n' in {@code chunk[from, to)}, or -1: eight bytes at a time (every byte of a 2 GB history passes
     * here once), the classic "has a zero byte" test on the word XOR '\n' in each byte; its lowest flagged byte is
     * always a real match, so the first match is exact.
     */
    private int indexOfNewline(int from, int to) {
        byte[] a = chunk;
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long x = (long) LONGS.get(a, i) ^ NEWLINES;
            long hit = (x - ONES) & ~x & HIGHS;
            if (hit != 0) {
                return i + (Long.numberOfTrailingZeros(hit) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (a[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** Reads the next chunk; false at end of file. */
    private boolean fill() throws IOException {
        if (eof) {
            return false;
        }
        chunkStart += limit;
        pos = 0;
        limit = 0;
        chunkBuffer.clear();
        while (limit == 0) {
            int n = channel.read(chunkBuffer);
            if (n < 0) {
                eof = true;
                return false;
            }
            limit = chunkBuffer.position();
        }
        return true;
    }
}
