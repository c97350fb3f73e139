package org.agentworkspace.core.history;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * One JSONL history line to a Jackson tree, without Jackson's per-line parser, deserialization context and
 * char-by-char string decoding: {@link Json#parseObject} minus most of its cost. The result is the tree
 * {@link Json#parseObjectJackson} gives (same node classes, same key order, the last of duplicate keys in the place
 * of the first), and a line is rejected exactly when that path rejects it; the tests hold the two against each other.
 *
 * <p>Why a copy of jackson-core's parsing rules rather than Jackson's streaming parser (issue #19 asks for the
 * library unless a benchmark shows it misses a target; docs/benchmarks.md "Hand-copies kept"): parsing is a third of
 * the readers' CPU in the first full read of the 2 GB benchmark history, whose target is full text within 15 s. With
 * this class the first read took 15.0-16.4 s client-less in alternating runs against 16.3-17.1 s with the Jackson
 * path (run 14, "parser only"), itself 26-37 % less time and 23-30 % less allocation per byte single-threaded
 * ({@code JsonLineSpeed}); the target is met only on the faster machines even with it (runs 14-17). The Jackson path
 * stays as {@link Json#parseObjectJackson}, the tests' oracle and the fallback for lines that are not plain UTF-8.
 *
 * <p>What the Jackson path (jackson-core 2.22, the default factory with {@link Json}'s constraints) accepts, found by
 * probing it, and matched here:
 * <ul>
 *   <li>Exactly one object, whitespace (space, tab, CR, LF only) around tokens, nothing after it. Strict JSON:
 *       no comments, single quotes, unquoted names, trailing commas, NaN/Infinity, leading zeros or plus signs.</li>
 *   <li>Nesting: 2000 levels counting the line's own object; the 2001st is rejected, read or skipped.</li>
 *   <li>Numbers longer than 1000 digits are rejected, read or skipped (digits only: for an integer its digits, for a
 *       fraction or exponent the integer, fraction and exponent digits together). Integers become IntNode, LongNode
 *       or BigIntegerNode by the smallest that holds them ({@code -0} is IntNode 0), anything with a point or an
 *       exponent DoubleNode of {@link Double#parseDouble} ({@code 1e400} is Infinity).</li>
 *   <li>String values that are read (kept): control bytes rejected; escapes {@code \" \\ \/ \b \f \n \r \t \\uXXXX},
 *       any {@code \\u} escape kept as the char it names, a lone or reversed surrogate included. UTF-8: lead bytes
 *       0x80-0xBF and 0xF8-0xFF rejected, every continuation byte must be 10xxxxxx, a truncated sequence is rejected;
 *       overlong forms are NOT rejected but decoded ({@code C0 80} and {@code E0 80 80} give U+0000); a three-byte
 *       sequence that decodes to a surrogate (ED A0 80 - ED BF BF) is rejected; four-byte sequences with any lead
 *       F0-F7 are accepted, even past U+10FFFF, and split as {@code 0xD800 | (cp - 0x10000) >> 10} and
 *       {@code 0xDC00 | (cp & 0x3FF)} in int arithmetic (so the overlong {@code F0 80 80 80} gives U+FFC0 U+DC00).</li>
 *   <li>String values that are skipped (a field not kept, and everything inside it): Jackson's {@code skipChildren}
 *       still tokenizes them, and its string skipper checks control bytes, escapes (a bad escape or a short
 *       {@code \\u} is rejected) and UTF-8 lead and continuation bytes as above, but it does NOT check for encoded
 *       surrogates: {@code ED A0 80} inside a skipped string is accepted, while the same line is corrupt when that
 *       field is kept. Skipped numbers, literals, names and structure are checked exactly as read ones.</li>
 *   <li>Field names (read or skipped, at any depth) are always decoded in full: the UTF-8 rules of read strings
 *       (overlong accepted, encoded surrogates rejected), but four-byte sequences split with {@code 0xD800 + ...}
 *       instead of {@code |} (so {@code F0 80 80 80} gives U+D7C0 U+DC00); a {@code \\u} escape of a surrogate must
 *       be a high one followed at once by an escaped low one (a lone, reversed or raw-paired surrogate escape is
 *       rejected in a name, unlike in a value); a name longer than 50000 bytes is rejected, counted as Jackson does:
 *       raw bytes as they are, an escape as the length of its char in UTF-8, an escaped pair as 4.</li>
 *   <li>Jackson reads a byte array as UTF-8 unless its first bytes look like UTF-16 or UTF-32 (a zero byte among the
 *       first four, or a UTF-16 byte order mark); a UTF-8 byte order mark is skipped when the input has at least 4
 *       bytes. {@link #plainUtf8} tells the lines this parser takes; {@link Json#parseObject} gives the others
 *       (never valid UTF-8 JSON anyway) to Jackson.</li>
 * </ul>
 * Not reproduced: limits that a line cannot reach (string length {@link HistoryReader#MAX_LINE_BYTES}, checked
 * anyway), the failure of Jackson's shared name table under a hash-flooding attack, and that table's answer for a
 * name holding 0xFF bytes before its last one to three bytes: Jackson reads it as the shorter name when a parser of
 * the same factory met that one before (its lookup pads a short last group of four bytes with 0xFF), and rejects it
 * otherwise; this parser always rejects it (see {@link Json#newFactory}).
 *
 * <p>Cost: ASCII strings without escapes (most of them) are found with a word-at-a-time scan and copied once into a
 * Latin-1 String; strings with escapes or non-ASCII text are decoded into a reused Latin-1 buffer, switching to a
 * reused char buffer at the first char above U+00FF. Skipped values build nothing. Short ASCII field names come from
 * a small per-thread cache. Objects keep their fields in a {@link SmallMap} (two arrays, no hashing). Containers are read with an explicit stack (no recursion, so 2000 levels cannot overflow
 * a thread's stack). One parser per thread holds the buffers; it keeps no reference to the input after a line.
 */
final class JsonLine extends JsonLineText {
    private static final ThreadLocal<JsonLine> PARSERS = ThreadLocal.withInitial(JsonLine::new);

    /** Containers being read (a Map for an object, a List for an array), and which levels are objects. */
    private Object[] stack = new Object[32];
    private boolean[] objects = new boolean[32];
    private int stackUsed;

    /** Set by {@link #scanNumber}: where the number starts, its integer digits, whether it has a fraction/exponent. */
    private int numberStart;
    private int numberIntDigits;
    private boolean numberFloat;

    private JsonLine() {
    }

    /**
     * Whether Jackson would read {@code bytes[off, off+len)} as UTF-8, so that {@link #parse} is the same as the
     * Jackson path: false when a zero byte is among the first four or the input starts with a UTF-16 byte order mark
     * (Jackson may then decode it as UTF-16 or UTF-32).
     */
    static boolean plainUtf8(byte[] bytes, int off, int len) {
        int n = Math.min(len, 4);
        for (int i = 0; i < n; i++) {
            if (bytes[off + i] == 0) {
                return false;
            }
        }
        if (len >= 2) {
            int b0 = bytes[off] & 0xFF;
            int b1 = bytes[off + 1] & 0xFF;
            return !(b0 == 0xFE && b1 == 0xFF || b0 == 0xFF && b1 == 0xFE);
        }
        return true;
    }

    /**
     * Parses one JSON object from {@code bytes[off, off+len)} (UTF-8, see {@link #plainUtf8}), keeping the top-level
     * fields in {@code keep} (all when null); the others are checked and skipped without building nodes.
     */
    static ObjectNode parse(byte[] bytes, int off, int len, Set<String> keep) throws IOException {
        Objects.checkFromIndexSize(off, len, bytes.length);
        return PARSERS.get().object(bytes, off, len, keep);
    }

    private ObjectNode object(byte[] bytes, int off, int len, Set<String> keep) throws IOException {
        b = bytes;
        pos = off;
        begin = off;
        end = off + len;
        try {
            if (len >= 4 && bytes[off] == (byte) 0xEF && bytes[off + 1] == (byte) 0xBB
                    && bytes[off + 2] == (byte) 0xBF) {
                pos += 3;
            }
            if (ws() != '{') {
                throw error("not a JSON object");
            }
            pos++;
            SmallMap fields = new SmallMap();
            int c = ws();
            if (c == '}') {
                pos++;
            } else {
                while (true) {
                    if (c != '"') {
                        throw error("expected a field name");
                    }
                    pos++;
                    String name = name(true);
                    if (ws() != ':') {
                        throw error("expected ':'");
                    }
                    pos++;
                    c = ws();
                    if (keep == null || keep.contains(name)) {
                        fields.put(name, c == '{' || c == '[' ? container() : scalar(c));
                    } else if (c == '{' || c == '[') {
                        skipContainer();
                    } else {
                        skipScalar(c);
                    }
                    c = ws();
                    if (c == ',') {
                        pos++;
                        c = ws();
                    } else if (c == '}') {
                        pos++;
                        break;
                    } else {
                        throw error("expected ',' or '}'");
                    }
                }
            }
            if (ws() >= 0) {
                throw error("trailing content after the JSON object");
            }
            return new ObjectNode(NODES, fields);
        } finally {
            release();
        }
    }

    /** Forgets the line and drops buffers a long string made large. */
    private void release() {
        b = null;
        if (latin.length > KEEP_BUFFER) {
            latin = new byte[256];
        }
        if (chars.length > KEEP_BUFFER) {
            chars = new char[256];
        }
        if (stackUsed > 0) {
            Arrays.fill(stack, 0, stackUsed, null);
            stackUsed = 0;
        }
    }

    /** Skips whitespace; the byte at the new position (not consumed), or -1 at the end. */
    private int ws() {
        byte[] a = b;
        int p = pos;
        int e = end;
        while (p < e) {
            int c = a[p] & 0xFF;
            if (c > ' ' || c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                pos = p;
                return c;
            }
            p++;
        }
        pos = p;
        return -1;
    }

    /** A string, number or literal starting with {@code c} at the position. */
    private JsonNode scalar(int c) throws IOException {
        switch (c) {
            case '"' -> {
                pos++;
                return TextNode.valueOf(string());
            }
            case 't' -> {
                literal(TRUE);
                return BooleanNode.TRUE;
            }
            case 'f' -> {
                literal(FALSE);
                return BooleanNode.FALSE;
            }
            case 'n' -> {
                literal(NULL);
                return NullNode.instance;
            }
            default -> {
                if (c == '-' || c >= '0' && c <= '9') {
                    return number();
                }
                throw error("expected a value");
            }
        }
    }

    private void skipScalar(int c) throws IOException {
        switch (c) {
            case '"' -> {
                pos++;
                skipString();
            }
            case 't' -> literal(TRUE);
            case 'f' -> literal(FALSE);
            case 'n' -> literal(NULL);
            default -> {
                if (c == '-' || c >= '0' && c <= '9') {
                    scanNumber();
                } else {
                    throw error("expected a value");
                }
            }
        }
    }

    private void literal(byte[] word) throws IOException {
        int p = pos;
        if (end - p < word.length) {
            throw error("unrecognized token");
        }
        for (int i = 1; i < word.length; i++) {
            if (b[p + i] != word[i]) {
                throw error("unrecognized token");
            }
        }
        pos = p + word.length;
    }

    /**
     * The array or object opening at the position (a value inside the line's object, so at depth 2), read without
     * recursion: {@code stack} holds the open containers' maps and lists.
     */
    @SuppressWarnings("unchecked")
    private JsonNode container() throws IOException {
        int sp = 0;
        JsonNode root = push(sp++);
        boolean first = true;
        while (true) {
            boolean object = objects[sp - 1];
            int c = ws();
            if (c == (object ? '}' : ']')) {
                pos++;
                if (--sp == 0) {
                    return root;
                }
                first = false;
                continue;
            }
            if (!first) {
                if (c != ',') {
                    throw error(object ? "expected ',' or '}'" : "expected ',' or ']'");
                }
                pos++;
                c = ws();
            }
            first = false;
            if (object) {
                if (c != '"') {
                    throw error("expected a field name");
                }
                pos++;
                String name = name(true);
                if (ws() != ':') {
                    throw error("expected ':'");
                }
                pos++;
                c = ws();
                Map<String, JsonNode> map = (Map<String, JsonNode>) stack[sp - 1];
                if (c == '{' || c == '[') {
                    map.put(name, push(sp++));
                    first = true;
                } else {
                    map.put(name, scalar(c));
                }
            } else {
                List<JsonNode> list = (List<JsonNode>) stack[sp - 1];
                if (c == '{' || c == '[') {
                    list.add(push(sp++));
                    first = true;
                } else {
                    list.add(scalar(c));
                }
            }
        }
    }

    /** Opens the container at the position as stack level {@code sp}; its node. */
    private JsonNode push(int sp) throws IOException {
        level(sp);
        if (b[pos++] == '{') {
            SmallMap map = new SmallMap();
            stack[sp] = map;
            objects[sp] = true;
            return new ObjectNode(NODES, map);
        }
        ArrayList<JsonNode> list = new ArrayList<>();
        stack[sp] = list;
        objects[sp] = false;
        return new ArrayNode(NODES, list);
    }

    /** Checks the depth of stack level {@code sp} (the line's object is depth 1) and makes room for it. */
    private void level(int sp) throws IOException {
        if (sp + 2 > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH);
        }
        if (sp == objects.length) {
            objects = Arrays.copyOf(objects, sp * 2);
            stack = Arrays.copyOf(stack, sp * 2);
        }
        if (sp >= stackUsed) {
            stackUsed = sp + 1;
        }
    }

    /** Checks and skips the array or object opening at the position, as {@link #container} reads it. */
    private void skipContainer() throws IOException {
        int sp = 0;
        level(sp);
        objects[sp++] = b[pos++] == '{';
        boolean first = true;
        while (true) {
            boolean object = objects[sp - 1];
            int c = ws();
            if (c == (object ? '}' : ']')) {
                pos++;
                if (--sp == 0) {
                    return;
                }
                first = false;
                continue;
            }
            if (!first) {
                if (c != ',') {
                    throw error(object ? "expected ',' or '}'" : "expected ',' or ']'");
                }
                pos++;
                c = ws();
            }
            first = false;
            if (object) {
                if (c != '"') {
                    throw error("expected a field name");
                }
                pos++;
                name(false);
                if (ws() != ':') {
                    throw error("expected ':'");
                }
                pos++;
                c = ws();
            }
            if (c == '{' || c == '[') {
                level(sp);
                objects[sp++] = b[pos++] == '{';
                first = true;
            } else {
                skipScalar(c);
            }
        }
    }

    // ---- numbers

    /** Checks the number at the position and moves past it (see the class comment for the grammar and limits). */
    private void scanNumber() throws IOException {
        byte[] a = b;
        int e = end;
        int p = pos;
        int start = p;
        if (a[p] == '-') {
            p++;
        }
        int intStart = p;
        if (p >= e) {
            throw error("expected a digit after '-'");
        }
        int c = a[p];
        if (c == '0') {
            p++;
            if (p < e && digit(a[p])) {
                throw error("leading zeros");
            }
        } else if (c >= '1' && c <= '9') {
            p++;
            while (p < e && digit(a[p])) {
                p++;
            }
        } else {
            throw error("expected a digit after '-'");
        }
        int intDigits = p - intStart;
        int digits = intDigits;
        boolean fp = false;
        if (p < e && a[p] == '.') {
            fp = true;
            int s = ++p;
            while (p < e && digit(a[p])) {
                p++;
            }
            if (p == s) {
                pos = p;
                throw error("decimal point not followed by a digit");
            }
            digits += p - s;
        }
        if (p < e && (a[p] == 'e' || a[p] == 'E')) {
            fp = true;
            p++;
            if (p < e && (a[p] == '+' || a[p] == '-')) {
                p++;
            }
            int s = p;
            while (p < e && digit(a[p])) {
                p++;
            }
            if (p == s) {
                pos = p;
                throw error("exponent not followed by a digit");
            }
            digits += p - s;
        }
        pos = p;
        if ((fp ? digits : intDigits) > MAX_NUMBER_DIGITS) {
            throw error("number longer than " + MAX_NUMBER_DIGITS + " digits");
        }
        numberStart = start;
        numberIntDigits = intDigits;
        numberFloat = fp;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    private JsonNode number() throws IOException {
        scanNumber();
        int start = numberStart;
        int stop = pos;
        if (numberFloat) {
            String text = new String(b, start, stop - start, StandardCharsets.ISO_8859_1);
            return DoubleNode.valueOf(Double.parseDouble(text));
        }
        if (numberIntDigits <= 18) {
            boolean negative = b[start] == '-';
            long v = 0;
            for (int p = negative ? start + 1 : start; p < stop; p++) {
                v = v * 10 + (b[p] - '0');
            }
            if (negative) {
                v = -v;
            }
            return v == (int) v ? IntNode.valueOf((int) v) : LongNode.valueOf(v);
        }
        BigInteger v = new BigInteger(new String(b, start, stop - start, StandardCharsets.ISO_8859_1));
        return v.bitLength() < 64 ? LongNode.valueOf(v.longValue()) : BigIntegerNode.valueOf(v);
    }

    /** A line that is not exactly one JSON object (as the Jackson path would have it). */
    static final class MalformedLine extends IOException {
        private static final long serialVersionUID = 1L;

        MalformedLine(String message) {
            super(message);
        }
    }
}