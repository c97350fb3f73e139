package org.agentworkspace.core.shell;

/**
 * The last {@code capacity} bytes of a terminal's output, addressed by absolute byte offsets (offset 0 is the first
 * byte the terminal ever wrote). Not thread-safe: the session's lock guards it.
 */
final class OutputRing {
    private final byte[] buf;
    private long end;

    OutputRing(int capacity) {
        this.buf = new byte[capacity];
    }

    /** The offset just after the last byte written. */
    long end() {
        return end;
    }

    /** The oldest offset still held. */
    long start() {
        return Math.max(0, end - buf.length);
    }

    void append(byte[] b, int off, int len) {
        if (len >= buf.length) {
            off += len - buf.length;
            end += len - buf.length;
            len = buf.length;
        }
        int pos = (int) (end % buf.length);
        int first = Math.min(len, buf.length - pos);
        System.arraycopy(b, off, buf, pos, first);
        System.arraycopy(b, off + first, buf, 0, len - first);
        end += len;
    }

    /** The bytes from {@code max(offset, start())} to {@link #end()}; empty when {@code offset >= end()}. */
    byte[] since(long offset) {
        long from = Math.max(Math.max(0, offset), start());
        if (from >= end) {
            return new byte[0];
        }
        int len = (int) (end - from);
        byte[] out = new byte[len];
        int pos = (int) (from % buf.length);
        int first = Math.min(len, buf.length - pos);
        System.arraycopy(buf, pos, out, 0, first);
        System.arraycopy(buf, 0, out, first, len - first);
        return out;
    }

    /**
     * The length of the longest prefix of {@code b[0..len)} that does not end inside a UTF-8 sequence, so every chunk
     * decodes on its own. Malformed input is passed through (it decodes to U+FFFD).
     */
    static int completeUtf8(byte[] b, int len) {
        for (int i = len - 1; i >= Math.max(0, len - 4); i--) {
            int c = b[i] & 0xFF;
            if ((c & 0xC0) == 0x80) {
                continue;
            }
            int need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
            return len - i < need ? i : len;
        }
        return len;
    }

    /** How many leading continuation bytes to skip so a replay cut inside a character starts on a character. */
    static int continuationPrefix(byte[] b) {
        int i = 0;
        while (i < b.length && i < 3 && (b[i] & 0xC0) == 0x80) {
            i++;
        }
        return i;
    }
}
