package org.agentworkspace.core.history;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * The text half of {@link JsonLine} (split off to keep each class under ~800 lines; one parser, one object per
 * thread): the line's bytes and position, the limits and word-at-a-time constants, and strings, field names, escapes,
 * UTF-8 and errors. Kept for the benchmark named in {@link JsonLine}.
 */
abstract sealed class JsonLineText permits JsonLine {
    static final int MAX_DEPTH = 2000;
    static final int MAX_NAME_BYTES = 50_000;
    static final int MAX_NUMBER_DIGITS = 1000;
    static final int MAX_STRING_CHARS = HistoryReader.MAX_LINE_BYTES;

    static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Decode buffers that grew past this for a long string are dropped after the line. */
    static final int KEEP_BUFFER = 1 << 20;
    static final int NAME_BITS = 9;
    static final int NAME_SLOTS = 1 << NAME_BITS;
    static final int NAME_CACHE_MAX = 32;

    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    static final long ONES = 0x0101010101010101L;
    static final long HIGHS = 0x8080808080808080L;
    static final long QUOTES = 0x2222222222222222L;
    static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    static final long SPACES = 0x2020202020202020L;
    static final byte[] HEX = new byte[256];
    static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    static final byte[] NULL = {'n', 'u', 'l', 'l'};

    static {
        Arrays.fill(HEX, (byte) -1);
        for (int i = 0; i < 10; i++) {
            HEX['0' + i] = (byte) i;
        }
        for (int i = 0; i < 6; i++) {
            HEX['a' + i] = (byte) (10 + i);
            HEX['A' + i] = (byte) (10 + i);
        }
    }

    /** The line being parsed, the read position in it, its end and its start. */
    byte[] b;
    int pos;
    int end;
    int begin;

    byte[] latin = new byte[256];
    char[] chars = new char[256];

    final String[] names = new String[NAME_SLOTS];
    final byte[][] nameKeys = new byte[NAME_SLOTS][];

    // ---- strings

    /**
     * The first position from {@code p} holding '"', '\\', a control byte or a non-ASCII byte (the end if none):
     * eight bytes at a time, each test flagging the high bit of a matching byte (no false flag below the first
     * real match, since no borrow starts below it).
     */
    int plain(int p) {
        byte[] a = b;
        int e = end;
        for (; p <= e - 8; p += 8) {
            long w = (long) LONGS.get(a, p);
            long q = w ^ QUOTES;
            long s = w ^ BACKSLASHES;
            long hit = ((q - ONES) | (s - ONES) | (w - SPACES) | w) & HIGHS;
            if (hit != 0) {
                return p + (Long.numberOfTrailingZeros(hit) >>> 3);
            }
        }
        for (; p < e; p++) {
            int c = a[p];
            if (c == '"' || c == '\\' || c < 0x20) {
                return p;
            }
        }
        return e;
    }

    /** The string value whose opening quote is just before the position; moves past its closing quote. */
    String string() throws IOException {
        int start = pos;
        int p = plain(start);
        if (p < end && b[p] == '"') {
            pos = p + 1;
            int n = p - start;
            if (n > MAX_STRING_CHARS) {
                throw error("string longer than " + MAX_STRING_CHARS);
            }
            return n == 0 ? "" : new String(b, start, n, StandardCharsets.ISO_8859_1);
        }
        return latinString(start, p);
    }

    /** Decodes a string with escapes or non-ASCII bytes ({@code p}: the first) into Latin-1 while its chars fit. */
    String latinString(int start, int p) throws IOException {
        byte[] a = b;
        int e = end;
        int n = p - start;
        byte[] out = latin(n + 16);
        System.arraycopy(a, start, out, 0, n);
        while (true) {
            if (p >= e) {
                pos = p;
                throw error("unterminated string");
            }
            int c = a[p] & 0xFF;
            int ch;
            int len;
            if (c == '"') {
                pos = p + 1;
                if (n > MAX_STRING_CHARS) {
                    throw error("string longer than " + MAX_STRING_CHARS);
                }
                return new String(out, 0, n, StandardCharsets.ISO_8859_1);
            } else if (c == '\\') {
                ch = escape(p + 1);
                len = a[p + 1] == 'u' ? 6 : 2;
            } else if (c < 0x20) {
                throw control(p);
            } else if (c < 0xC0) {
                throw lead(p);
            } else if (c < 0xE0) {
                ch = ((c & 0x1F) << 6) | cont(p + 1);
                len = 2;
            } else if (c < 0xF0) {
                ch = three(c, p);
                len = 3;
            } else {
                ch = 0x100; // four bytes (or an invalid lead): never Latin-1
                len = 0;
            }
            if (ch > 0xFF) {
                return wideString(p, n);
            }
            if (n == out.length) {
                out = latin(n + 1);
            }
            out[n++] = (byte) ch;
            p += len;
            int q = plain(p);
            if (q > p) {
                out = latin(n + (q - p));
                System.arraycopy(a, p, out, n, q - p);
                n += q - p;
                p = q;
            }
        }
    }

    /** Goes on with the string in {@link #latinString} as chars, from {@code p}, after its first {@code n} chars. */
    String wideString(int p, int n) throws IOException {
        byte[] a = b;
        int e = end;
        char[] out = chars(n + 16);
        byte[] in = latin;
        for (int i = 0; i < n; i++) {
            out[i] = (char) (in[i] & 0xFF);
        }
        while (true) {
            int q = plain(p);
            if (q > p) {
                out = chars(n + (q - p));
                for (int i = p; i < q; i++) {
                    out[n++] = (char) a[i];
                }
                p = q;
            }
            if (p >= e) {
                pos = p;
                throw error("unterminated string");
            }
            int c = a[p] & 0xFF;
            if (c == '"') {
                pos = p + 1;
                if (n > MAX_STRING_CHARS) {
                    throw error("string longer than " + MAX_STRING_CHARS);
                }
                return new String(out, 0, n);
            }
            if (n + 2 > out.length) {
                out = chars(n + 2);
            }
            if (c == '\\') {
                out[n++] = (char) escape(p + 1);
                p += a[p + 1] == 'u' ? 6 : 2;
            } else if (c < 0x20) {
                throw control(p);
            } else if (c < 0xC0) {
                throw lead(p);
            } else if (c < 0xE0) {
                out[n++] = (char) (((c & 0x1F) << 6) | cont(p + 1));
                p += 2;
            } else if (c < 0xF0) {
                out[n++] = (char) three(c, p);
                p += 3;
            } else if (c < 0xF8) {
                int v = four(c, p) - 0x10000;
                out[n++] = (char) (0xD800 | (v >> 10));
                out[n++] = (char) (0xDC00 | (v & 0x3FF));
                p += 4;
            } else {
                throw lead(p);
            }
        }
    }

    /** Checks and skips the string whose opening quote is just before the position (no surrogate check: see above). */
    void skipString() throws IOException {
        byte[] a = b;
        int e = end;
        int p = pos;
        while (true) {
            p = plain(p);
            if (p >= e) {
                pos = p;
                throw error("unterminated string");
            }
            int c = a[p] & 0xFF;
            if (c == '"') {
                pos = p + 1;
                return;
            } else if (c == '\\') {
                escape(p + 1);
                p += a[p + 1] == 'u' ? 6 : 2;
            } else if (c < 0x20) {
                throw control(p);
            } else if (c < 0xC0) {
                throw lead(p);
            } else if (c < 0xE0) {
                cont(p + 1);
                p += 2;
            } else if (c < 0xF0) {
                cont(p + 1);
                cont(p + 2);
                p += 3;
            } else if (c < 0xF8) {
                cont(p + 1);
                cont(p + 2);
                cont(p + 3);
                p += 4;
            } else {
                throw lead(p);
            }
        }
    }

    // ---- field names

    /**
     * The field name whose opening quote is just before the position (null when not {@code build}, the name only
     * checked); moves past its closing quote. Short ASCII names come from the cache.
     */
    String name(boolean build) throws IOException {
        int start = pos;
        int p = plain(start);
        if (p < end && b[p] == '"') {
            int n = p - start;
            if (n > MAX_NAME_BYTES) {
                throw error("field name longer than " + MAX_NAME_BYTES + " bytes");
            }
            pos = p + 1;
            return build ? cachedName(start, n) : null;
        }
        return slowName(start, build);
    }

    /** The ASCII name {@code b[start, start+n)}, from the cache when it holds it (names up to 32 bytes). */
    String cachedName(int start, int n) {
        byte[] a = b;
        if (n > NAME_CACHE_MAX || n == 0) {
            return n == 0 ? "" : new String(a, start, n, StandardCharsets.ISO_8859_1);
        }
        long w;
        if (n >= 8) {
            w = (long) LONGS.get(a, start) * 31 + (long) LONGS.get(a, start + n - 8);
        } else {
            w = 0;
            for (int i = 0; i < n; i++) {
                w = w << 8 | a[start + i];
            }
        }
        int slot = (int) (((w + n) * 0x9E3779B97F4A7C15L) >>> (64 - NAME_BITS));
        byte[] key = nameKeys[slot];
        if (key != null && key.length == n && sameBytes(key, a, start, n)) {
            return names[slot];
        }
        String s = new String(a, start, n, StandardCharsets.ISO_8859_1);
        nameKeys[slot] = Arrays.copyOfRange(a, start, start + n);
        names[slot] = s;
        return s;
    }

    /** Whether {@code key} (n bytes) equals {@code a[start, start+n)}, a word at a time (package-private: tested). */
    static boolean sameBytes(byte[] key, byte[] a, int start, int n) {
        if (n < 8) {
            for (int i = 0; i < n; i++) {
                if (key[i] != a[start + i]) {
                    return false;
                }
            }
            return true;
        }
        for (int i = 0; i < n - 8; i += 8) {
            if ((long) LONGS.get(key, i) != (long) LONGS.get(a, start + i)) {
                return false;
            }
        }
        return (long) LONGS.get(key, n - 8) == (long) LONGS.get(a, start + n - 8);
    }

    /** A name with escapes or non-ASCII bytes, decoded from {@code p} by Jackson's rules for names (see above). */
    String slowName(int p, boolean build) throws IOException {
        byte[] a = b;
        int e = end;
        char[] out = build ? chars(64) : null;
        int n = 0;
        long bytes = 0;
        while (true) {
            if (p >= e) {
                pos = p;
                throw error("unterminated field name");
            }
            int c = a[p] & 0xFF;
            if (c == '"') {
                break;
            }
            if (build && n + 2 > out.length) {
                out = chars(n + 2);
            }
            if (c == '\\') {
                int ch = escape(p + 1);
                p += a[p + 1] == 'u' ? 6 : 2;
                if (ch >= 0xD800 && ch <= 0xDFFF) {
                    if (ch >= 0xDC00) {
                        throw error("unexpected low surrogate in a field name");
                    }
                    if (e - p < 2 || a[p] != '\\' || a[p + 1] != 'u') {
                        throw error("broken surrogate pair in a field name");
                    }
                    int low = escape(p + 1);
                    if (low < 0xDC00 || low > 0xDFFF) {
                        throw error("broken surrogate pair in a field name");
                    }
                    p += 6;
                    if (build) {
                        out[n++] = (char) ch;
                        out[n++] = (char) low;
                    }
                    bytes += 4;
                } else {
                    if (build) {
                        out[n++] = (char) ch;
                    }
                    bytes += ch < 0x80 ? 1 : ch < 0x800 ? 2 : 3;
                }
            } else if (c < 0x20) {
                throw control(p);
            } else if (c < 0x80) {
                if (build) {
                    out[n++] = (char) c;
                }
                p++;
                bytes++;
            } else if (c < 0xC0) {
                throw lead(p);
            } else if (c < 0xE0) {
                int ch = ((c & 0x1F) << 6) | cont(p + 1);
                if (build) {
                    out[n++] = (char) ch;
                }
                p += 2;
                bytes += 2;
            } else if (c < 0xF0) {
                int ch = three(c, p);
                if (build) {
                    out[n++] = (char) ch;
                }
                p += 3;
                bytes += 3;
            } else if (c < 0xF8) {
                int v = four(c, p) - 0x10000;
                if (build) {
                    out[n++] = (char) (0xD800 + (v >> 10));
                    out[n++] = (char) (0xDC00 | (v & 0x3FF));
                }
                p += 4;
                bytes += 4;
            } else {
                throw lead(p);
            }
        }
        pos = p + 1;
        if (bytes > MAX_NAME_BYTES) {
            throw error("field name longer than " + MAX_NAME_BYTES + " bytes");
        }
        return build ? new String(out, 0, n) : null;
    }

    // ---- escapes and UTF-8

    /** The char of the escape whose backslash is just before {@code p} (its length: 6 for {@code \\u}, else 2). */
    int escape(int p) throws IOException {
        if (p >= end) {
            pos = p;
            throw error("unterminated escape");
        }
        switch (b[p]) {
            case '"':
                return '"';
            case '\\':
                return '\\';
            case '/':
                return '/';
            case 'b':
                return '\b';
            case 'f':
                return '\f';
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 't':
                return '\t';
            case 'u': {
                if (end - p < 5) {
                    pos = p;
                    throw error("unterminated escape");
                }
                int v = HEX[b[p + 1] & 0xFF] << 12 | HEX[b[p + 2] & 0xFF] << 8 | HEX[b[p + 3] & 0xFF] << 4
                        | HEX[b[p + 4] & 0xFF];
                if (v < 0) {
                    pos = p;
                    throw error("expected a hex digit in a \\u escape");
                }
                return v;
            }
            default:
                pos = p;
                throw error("unrecognized escape");
        }
    }

    /** The low six bits of the continuation byte at {@code p}. */
    int cont(int p) throws IOException {
        if (p >= end) {
            pos = p;
            throw error("truncated UTF-8 sequence");
        }
        int d = b[p];
        if ((d & 0xC0) != 0x80) {
            pos = p;
            throw error("invalid UTF-8 middle byte");
        }
        return d & 0x3F;
    }

    /** The char of the three-byte sequence with lead {@code c} at {@code p}; an encoded surrogate is rejected. */
    int three(int c, int p) throws IOException {
        int ch = ((c & 0x0F) << 12) | (cont(p + 1) << 6) | cont(p + 2);
        if (ch >= 0xD800 && ch <= 0xDFFF) {
            pos = p;
            throw error("invalid UTF-8: encoded surrogate");
        }
        return ch;
    }

    /** The code point of the four-byte sequence with lead {@code c} (F0-F7) at {@code p}, not range-checked. */
    int four(int c, int p) throws IOException {
        return ((c & 0x07) << 18) | (cont(p + 1) << 12) | (cont(p + 2) << 6) | cont(p + 3);
    }

    // ---- buffers and errors

    /** The Latin-1 buffer with room for {@code n} bytes, its content kept. */
    byte[] latin(int n) {
        if (n > latin.length) {
            latin = Arrays.copyOf(latin, Math.max(n, latin.length * 2));
        }
        return latin;
    }

    /** The char buffer with room for {@code n} chars, its content kept. */
    char[] chars(int n) {
        if (n > chars.length) {
            chars = Arrays.copyOf(chars, Math.max(n, chars.length * 2));
        }
        return chars;
    }

    IOException control(int p) {
        pos = p;
        return error("unescaped control character " + (b[p] & 0xFF));
    }

    IOException lead(int p) {
        pos = p;
        return error("invalid UTF-8 start byte 0x" + Integer.toHexString(b[p] & 0xFF));
    }

    IOException error(String what) {
        return new JsonLine.MalformedLine(what + " at byte " + (pos - begin));
    }

}
