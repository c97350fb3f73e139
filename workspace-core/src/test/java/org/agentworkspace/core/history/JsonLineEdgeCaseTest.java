package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.Test;

/**
 * A table of valid and invalid lines, each parsed by {@link JsonLine} (through {@link Json#parseObject}) and by the
 * Jackson path: both must accept or both reject, with the same tree, whether the interesting value is kept, skipped,
 * or nested. A few of Jackson's less obvious verdicts, which {@link JsonLine}'s class comment describes, are pinned
 * as well.
 */
class JsonLineEdgeCaseTest {
    private static final List<Set<String>> KEEPS = new ArrayList<>();

    static {
        KEEPS.add(null);
        KEEPS.add(Set.of());
        KEEPS.add(Set.of("k"));
        KEEPS.add(Set.of("a", "z"));
    }

    /** UTF-8 of the strings and the raw bytes of the int arrays, in order. */
    static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : parts) {
            if (p instanceof String s) {
                out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            } else if (p instanceof int[] raw) {
                for (int x : raw) {
                    out.write(x);
                }
            } else if (p instanceof byte[] raw) {
                out.writeBytes(raw);
            } else {
                throw new IllegalArgumentException(String.valueOf(p));
            }
        }
        return out.toByteArray();
    }

    private static int[] raw(int... b) {
        return b;
    }

    /** Value texts (JSON or not) placed as a value in several positions. */
    static List<Object[]> values() {
        List<Object[]> v = new ArrayList<>();
        for (String n : new String[] {"0", "-0", "1", "-1", "0.0", "-0.0", "1.0", "1e400", "-1e400", "1e-400", "1E5",
                "1e+5", "1e-5", "1E+05", "-0.0e-0", "0e0", "2147483647", "2147483648", "-2147483648", "-2147483649",
                "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                "123456789012345678", "-123456789012345678", "1234567890123456789", "99999999999999999999999",
                "0.1", "3.141592653589793", "4.9e-324", "2.4703282292062328e-324", "1.7976931348623157e308",
                "1.7976931348623159e308", "100000000000000000000000e-10", "01", "-01", "00", "-00", "0.", ".5", "-.5",
                "+1", "1e", "1e+", "1E-", "-", "--1", "- 1", "1.2.3", "1.e5", "1e5e3", "0x1", "1_000", "NaN",
                "Infinity", "-Infinity", "+Infinity", "0-1", "1-", "1.5E", "12a", "9" + "9".repeat(999),
                "9" + "9".repeat(1000), "-" + "1".repeat(1000), "-" + "1".repeat(1001), "1".repeat(500) + "."
                        + "1".repeat(500), "1".repeat(500) + "." + "1".repeat(501), "1e" + "1".repeat(999),
                "1e" + "1".repeat(1000), "1".repeat(998) + "e1", "1".repeat(999) + "e1", "1." + "0".repeat(999),
                "1." + "0".repeat(1000)}) {
            v.add(new Object[] {n});
        }
        for (String lit : new String[] {"true", "false", "null", "tru", "nul", "nulll", "True", "TRUE", "truex",
                "true1", "fals", "falsey", "nil", "undefined", "t"}) {
            v.add(new Object[] {lit});
        }
        // escapes
        for (String s : new String[] {"", "a", "\\/\\b\\f\\n\\r\\t\\\"\\\\", "\\u0000", "\\u001f", "\\u007f",
                "\\u00e9", "\\u00E9", "\\u00ff", "\\u0100", "\\u20ac", "\\uD83D\\uDE00", "\\ud83d\\ude00",
                "\\uDE00\\uD83D", "\\uD800", "\\uDC00x", "\\uD800\\u0041", "\\uD800\\n", "\\uABCD", "\\uabcd",
                "\\uFFFF", "\\uFEFF", "a\\u0000b", "\\x", "\\'", "\\a", "\\0", "\\u12", "\\u12G4", "\\uXYZW",
                "\\U0041", "\\", "\\u", "\\u004", "x\\\\", "x\\\\\\", "tab\\there", "line\\nbreak"}) {
            v.add(new Object[] {"\"" + s + "\""});
        }
        // raw bytes inside a string, alone, at the end, before ASCII and before more text
        int[][] seqs = {{0xC3, 0xA9}, {0xE2, 0x82, 0xAC}, {0xF0, 0x9F, 0x98, 0x80}, {0xEF, 0xBF, 0xBF},
                {0xF4, 0x8F, 0xBF, 0xBF}, {0xC2, 0x80}, {0xDF, 0xBF}, {0xE0, 0xA0, 0x80}, {0xC0, 0x80}, {0xC1, 0xBF},
                {0xE0, 0x80, 0x80}, {0xE0, 0x9F, 0xBF}, {0xF0, 0x80, 0x80, 0x80}, {0xF0, 0x8F, 0xBF, 0xBF},
                {0xED, 0xA0, 0x80}, {0xED, 0xBF, 0xBF}, {0xED, 0x9F, 0xBF}, {0xEE, 0x80, 0x80},
                {0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80}, {0xF4, 0x90, 0x80, 0x80}, {0xF5, 0x80, 0x80, 0x80},
                {0xF7, 0xBF, 0xBF, 0xBF}, {0xF8, 0x88, 0x80, 0x80, 0x80}, {0xFC, 0x84, 0x80, 0x80, 0x80, 0x80},
                {0xFE}, {0xFF}, {0x80}, {0xBF}, {0xC2}, {0xE2, 0x82}, {0xF0, 0x9F, 0x98}, {0xC2, 0x41},
                {0xE2, 0x41, 0x82}, {0xC2, 0xC2, 0x80}, {0xC2, 0x22}, {0xC2, 0x5C, 0x6E}, {0x7F}, {0x00}, {0x01},
                {0x09}, {0x0A}, {0x0D}, {0x1F}};
        for (int[] s : seqs) {
            v.add(new Object[] {"\"", s, "\""});
            v.add(new Object[] {"\"ab", s, "\""});
            v.add(new Object[] {"\"", s, "z\""});
            v.add(new Object[] {"\"0123456789", s, "abcdefghijklmnop\\n\""});
            v.add(new Object[] {"\"caf\u00e9 \\n", s, " \u20ac\""});
        }
        // Latin-1 then wider chars, escapes between, to cross every buffer switch
        for (String s : new String[] {"\u00e9\u20ac", "a\u00e9\\n\u20ac\\u0041\ud83d\ude00", "\\u00e9\\u20ac",
                "\u00ff\u0100", "\\n".repeat(40) + "\u4e2d".repeat(40), "\u00e9".repeat(300) + "\u20ac",
                "x".repeat(1000) + "\\t" + "y".repeat(1000), "\ud83d\ude00".repeat(100) + "\\\"",
                "Grüße, \\\"Welt\\\" — \u65e5\u672c\u8a9e 🎉\\r\\n"}) {
            v.add(new Object[] {"\"" + s + "\""});
        }
        // every position of a special byte relative to the 8-byte scan
        for (int i = 0; i < 18; i++) {
            for (String special : new String[] {"\\\"", "\\n", "\u00e9", "\u20ac", "\ud83d\ude00"}) {
                v.add(new Object[] {"\"" + "x".repeat(i) + special + "y".repeat(17 - i) + "\""});
            }
            v.add(new Object[] {"\"" + "x".repeat(i), raw(0x01), "y".repeat(17 - i) + "\""});
            v.add(new Object[] {"\"" + "x".repeat(i), raw(0x80), "y".repeat(17 - i) + "\""});
            v.add(new Object[] {"\"" + "x".repeat(i) + "\""});
            v.add(new Object[] {"\"" + "x".repeat(i)});
        }
        // containers
        for (String c : new String[] {"[]", "{}", "[ ]", "{ }", "[1,2]", "[1,]", "[,1]", "[1 2]", "[1,,2]", "[[]]",
                "[[[1],[2,[3]]]]", "{\"a\":1,}", "{\"a\"}", "{\"a\":}", "{a:1}", "{'a':1}", "{\"a\" 1}",
                "{\"a\":1 \"b\":2}", "{\"a\"::1}", "{,}", "[}", "{]", "[1}", "{\"a\":1]", "[\"a\":1]",
                "{\"a\":1,\"b\":2,\"a\":3}", "{\"a\":{\"x\":1},\"b\":0,\"a\":[2]}", "{\"\":1}", "{\"\":1,\"\":2}",
                "{\"Aa\":1,\"BB\":2}", "{\"BB\":1,\"Aa\":2}", "{\"a\":1,\"a\\u0000\":2}",
                "{\"\\u00e9\":1,\"\u00e9\":2}",
                "{\"a\":null,\"b\":[null,true,false]}", "[\"\",\"\",{}]", "[1,[2,[3,[4,[5]]]]]",
                "{ \"a\" : [ 1 , { \"b\" : null } ] }", "{\t\"a\"\r\n:\n[\r1\t]}", "/*x*/1", "//x\n1", "#1",
                "[1]//", "[1/**/]", "'a'", "\"a\"\"b\"", "[\"a\"\"b\"]"}) {
            v.add(new Object[] {c});
        }
        return v;
    }

    /** The value in several places: alone, before and after other fields, nested in an array and an object. */
    static List<byte[]> placements(Object[] value) {
        List<byte[]> out = new ArrayList<>();
        out.add(bytes(join(new Object[] {"{\"k\":"}, value, new Object[] {"}"})));
        out.add(bytes(join(new Object[] {"{\"a\":1,\"k\":"}, value, new Object[] {",\"z\":[true]}"})));
        out.add(bytes(join(new Object[] {"{\"k\":[0,"}, value, new Object[] {"],\"z\":{\"k\":"}, value,
                new Object[] {"}}"})));
        out.add(bytes(join(new Object[] {" {\n\"k\" : "}, value, new Object[] {" \t}\r\n"})));
        return out;
    }

    private static Object[] join(Object[]... parts) {
        List<Object> out = new ArrayList<>();
        for (Object[] p : parts) {
            out.addAll(List.of(p));
        }
        return out.toArray();
    }

    @Test
    void valuesAgreeKeptSkippedAndNested() {
        int accepted = 0;
        int rejected = 0;
        for (Object[] value : values()) {
            for (byte[] line : placements(value)) {
                for (Set<String> keep : KEEPS) {
                    if (JsonAgreement.assertAgree("value", line, keep)) {
                        accepted++;
                    } else {
                        rejected++;
                    }
                }
            }
        }
        assertTrue(accepted > 1000 && rejected > 1000, accepted + " accepted, " + rejected + " rejected");
    }

    /** Field names: the same texts as names, at the top (kept or skipped) and nested (read or skipped). */
    @Test
    void namesAgree() {
        List<Object[]> names = new ArrayList<>();
        for (String s : new String[] {"", "a", "type", "\\n", "\\u0000", "a\\u0000", "\\u00e9", "\\u20ac",
                "\\ud83d\\ude00", "\\uD83D\\uDE00x", "\\ud800", "\\udc00", "\\ude00\\ud83d", "\\ud800\\u0041",
                "\\ud800\\n", "\\ud800\\ud800", "\\ud800x", "\\ud800\\", "\\ud800\\u", "\\ud800\\udc0",
                "\\ud800\u00e9", "\\x", "\\u12", "caf\u00e9", "\ud83d\ude00", "\u65e5\u672c", "\\/\\\"\\\\",
                "x".repeat(40), "y".repeat(33) + "\u00e9"}) {
            names.add(new Object[] {s});
        }
        int[][] seqs = {{0xC3, 0xA9}, {0xC0, 0x80}, {0xC1, 0xBF}, {0xE0, 0x80, 0x80}, {0xED, 0xA0, 0x80},
                {0xED, 0x9F, 0xBF}, {0xF0, 0x80, 0x80, 0x80}, {0xF0, 0x8F, 0xBF, 0xBF}, {0xF0, 0x9F, 0x98, 0x80},
                {0xF4, 0x90, 0x80, 0x80}, {0xF5, 0x80, 0x80, 0x80}, {0xF7, 0xBF, 0xBF, 0xBF}, {0xF8, 0x80},
                {0xFF}, {0x80}, {0xC2}, {0xE2, 0x82}, {0xF0, 0x9F, 0x98}, {0xC2, 0x41}, {0x01}, {0x09}, {0x1F},
                {0x7F}};
        for (int[] s : seqs) {
            names.add(new Object[] {s});
            names.add(new Object[] {"a", s});
            names.add(new Object[] {"abcdefghijklmnopqrstuvwxyz0123456789", s, "xyz"});
        }
        int accepted = 0;
        for (Object[] name : names) {
            List<byte[]> lines = List.of(
                    bytes(join(new Object[] {"{\""}, name, new Object[] {"\":1}"})),
                    bytes(join(new Object[] {"{\"k\":{\""}, name, new Object[] {"\":\"v\"},\"a\":2}"})),
                    bytes(join(new Object[] {"{\"z\":[{\"q\":0,\""}, name, new Object[] {"\":[1]}]}"})));
            for (byte[] line : lines) {
                for (Set<String> keep : KEEPS) {
                    if (JsonAgreement.assertAgree("name", line, keep)) {
                        accepted++;
                    }
                }
            }
        }
        assertTrue(accepted > 100, accepted + " accepted");
    }

    /** More distinct names than the name cache has slots, of every length around its word and size limits. */
    @Test
    void manyNamesThroughTheCacheAgree() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            // same lengths, and long shared prefixes: slots must be shared, and told apart by every byte
            names.add("n" + i);
            names.add("prefix__" + i);
            names.add("a_common_prefix_" + i + "_and_suffix");
            names.add(String.format("%04d", i) + "_shared_tail_of_names");
            names.add((char) ('a' + i % 26) + "_" + i / 26);
        }
        for (int len = 0; len <= 40; len++) {
            names.add("x".repeat(len));
            names.add("y".repeat(Math.max(0, len - 1)) + "z");
        }
        for (int round = 0; round < 3; round++) {
            for (int from = 0; from < names.size(); from += 37) {
                StringBuilder line = new StringBuilder("{");
                for (int i = from; i < Math.min(names.size(), from + 60); i++) {
                    line.append(i > from ? "," : "").append('"').append(names.get((i * 7 + round) % names.size()))
                            .append("\":{\"").append(names.get(i)).append("\":").append(i).append('}');
                }
                line.append('}');
                for (Set<String> keep : KEEPS) {
                    assertTrue(JsonAgreement.assertAgree("names", bytes(line.toString()), keep));
                }
            }
        }
    }

    /** The cache's comparison sees a difference in any byte of a name of any cached length, at any offset. */
    @Test
    void cachedNamesAreComparedByteForByte() {
        for (int n = 1; n <= 32; n++) {
            byte[] key = "abcdefghijklmnopqrstuvwxyz012345".substring(0, n).getBytes(StandardCharsets.US_ASCII);
            for (int offset : new int[] {0, 3, 8}) {
                byte[] line = new byte[offset + n + 5];
                System.arraycopy(key, 0, line, offset, n);
                assertTrue(JsonLine.sameBytes(key, line, offset, n), n + " bytes at " + offset);
                for (int i = 0; i < n; i++) {
                    line[offset + i] ^= 0x01;
                    assertFalse(JsonLine.sameBytes(key, line, offset, n), n + " bytes, byte " + i + " differs");
                    line[offset + i] ^= 0x01;
                }
            }
        }
    }

    /** Jackson's 50000-byte name limit, counted in UTF-8 bytes, escapes re-encoded. */
    @Test
    void nameLengthLimitAgrees() {
        Map<String, Integer> units = new LinkedHashMap<>();
        units.put("a", 1);
        units.put("\u00e9", 2);
        units.put("\u20ac", 3);
        units.put("\ud83d\ude00", 4);
        units.put("\\u0061", 1);
        units.put("\\u0000", 1);
        units.put("\\u00e9", 2);
        units.put("\\u0800", 3);
        units.put("\\ud83d\\ude00", 4);
        for (Map.Entry<String, Integer> u : units.entrySet()) {
            int per = u.getValue();
            for (int total = 49_996; total <= 50_004; total++) {
                int count = total / per;
                String name = u.getKey().repeat(count) + "a".repeat(total - count * per);
                for (byte[] line : List.of(bytes("{\"" + name + "\":1}"), bytes("{\"k\":{\"" + name + "\":1}}"))) {
                    for (Set<String> keep : KEEPS) {
                        JsonAgreement.assertAgree("name of " + total + " bytes (" + u.getKey() + ")", line, keep);
                    }
                }
            }
        }
    }

    @Test
    void nestingAgreesAtAndOverTheLimit() {
        for (int depth : new int[] {1, 2, 3, 999, 1000, 1001, 1999, 2000, 2001, 2002, 5000}) {
            // depth counts the line's own object
            String arrays = "[".repeat(depth - 1) + "]".repeat(depth - 1);
            StringBuilder objects = new StringBuilder();
            objects.append("{\"k\":".repeat(depth - 1)).append("1").append("}".repeat(depth - 1));
            String mixed = "[{\"a\":".repeat((depth - 1) / 2) + (depth % 2 == 0 ? "[]" : "0")
                    + "}]".repeat((depth - 1) / 2);
            for (String value : new String[] {arrays, objects.toString(), mixed}) {
                if (value.isEmpty()) {
                    value = "0";
                }
                for (Set<String> keep : KEEPS) {
                    JsonAgreement.assertAgree("depth " + depth, bytes("{\"k\":" + value + "}"), keep);
                    JsonAgreement.assertAgree("depth " + depth + " unclosed",
                            bytes("{\"k\":" + value.substring(0, value.length() - 1) + "}"), keep);
                }
            }
        }
    }

    /** Whole lines: what surrounds the object, encodings, and the damaged lines of {@link CorruptLinesTest}. */
    @Test
    void wholeLinesAgree() {
        List<byte[]> lines = new ArrayList<>();
        for (String s : new String[] {"", " ", "\n", "{}", " {} ", "{}\n", "\r\n{}\t", "{} \r\n\t ", "[]", "1", "\"a\"",
                "null", "true", "{}{}", "{} {}", "{} x", "{}]", "{}}", "{}1", "{},", "{", "}", "{\"a\":1",
                "{\"a\":1}x", "{\"a\":1} //", "{\"a\":1}/**/", "{\"type\":\"user\"}", "\u00a0{}", "{}\u00a0",
                "this is not json at all", "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"cont",
                "{\"a\":1} {\"b\":2}", "[1,2,3]",
                "{\"type\":\"assistant\",\"uuid\":\"x\",\"message\":{\"content\":[{\"ty",
                "{\"a\":\"b\"}\u2028"}) {
            lines.add(bytes(s));
        }
        for (int c : new int[] {0x00, 0x01, 0x0B, 0x0C, 0x1F, 0x7F, 0x80, 0xA0, 0xFF}) {
            lines.add(bytes(raw(c), "{}"));
            lines.add(bytes("{}", raw(c)));
            lines.add(bytes("{", raw(c), "}"));
            lines.add(bytes("{\"a\":", raw(c), "1}"));
        }
        // byte order marks and what Jackson reads as UTF-16 or UTF-32
        int[] bom = {0xEF, 0xBB, 0xBF};
        lines.add(bytes(bom, "{}"));
        lines.add(bytes(bom, " {\"a\":1} "));
        lines.add(bytes(bom, "{"));
        lines.add(bytes(bom));
        lines.add(bytes(bom, raw(0xEF, 0xBB, 0xBF), "{}"));
        lines.add(bytes(" ", bom, "{}"));
        lines.add(bytes("{}", bom));
        lines.add(bytes(raw(0xEF, 0xBB), "{}"));
        lines.add(bytes("{", raw(0), "}", raw(0)));
        lines.add(bytes(raw(0), "{", raw(0), "}"));
        lines.add(bytes(raw(0xFF, 0xFE), "{", raw(0), "}", raw(0)));
        lines.add(bytes(raw(0xFE, 0xFF, 0), "{", raw(0), "}"));
        lines.add(bytes(raw(0xFE, 0xFF), "{}"));
        lines.add(bytes(raw(0xFF, 0xFE), "{}"));
        lines.add(bytes(raw(0, 0, 0), "{", raw(0, 0, 0), "}"));
        lines.add(bytes("{", raw(0, 0, 0), "}", raw(0, 0, 0)));
        lines.add(bytes(raw(0, 0, 0xFE, 0xFF, 0, 0, 0), "{", raw(0, 0, 0), "}"));
        lines.add(bytes("{\"", raw(0), "\":1}"));
        lines.add(bytes("{\"a", raw(0), "\":1}"));
        lines.add(bytes("{", raw(0)));
        lines.add(bytes(raw(0)));
        lines.add(bytes(raw(0, 1, 2, 0xff, 0xfe, 0xc3, 0x28, '{', '"', 0)));
        lines.add(bytes("{\"a\":\"", raw(0), "\"}"));
        byte[] utf16 = "{\"a\":[1,\"\u00e9\"]}".getBytes(StandardCharsets.UTF_16LE);
        lines.add(utf16);
        lines.add("{\"a\":[1,\"\u00e9\"]}".getBytes(StandardCharsets.UTF_16BE));
        lines.add("{\"a\":[1,\"\u00e9\"]}".getBytes(StandardCharsets.UTF_16));
        for (byte[] line : lines) {
            for (Set<String> keep : KEEPS) {
                JsonAgreement.assertAgree("line", line, keep);
            }
        }
    }

    /** The verdicts of the Jackson path that the class comment of JsonLine describes, pinned. */
    @Test
    void jacksonVerdictsAreAsDocumented() {
        // an encoded surrogate: corrupt when the string is read, accepted when it is skipped
        byte[] surrogate = bytes("{\"k\":\"", raw(0xED, 0xA0, 0x80), "\",\"a\":1}");
        assertFalse(JsonAgreement.assertAgree("surrogate", surrogate, null));
        assertTrue(JsonAgreement.assertAgree("surrogate", surrogate, Set.of("a")));
        // ... and always corrupt in a name
        assertFalse(JsonAgreement.assertAgree("surrogate name", bytes("{\"a\":{\"", raw(0xED, 0xA0, 0x80),
                "\":1}}"), Set.of()));
        // overlong forms are decoded, not rejected
        assertEquals("\u0000\u0000", text(bytes("{\"k\":\"", raw(0xC0, 0x80, 0xE0, 0x80, 0x80), "\"}")));
        // four-byte forms: values split with |, names with +
        assertEquals("\uFFC0\uDC00", text(bytes("{\"k\":\"", raw(0xF0, 0x80, 0x80, 0x80), "\"}")));
        assertEquals("\uD7C0\uDC00", parse(bytes("{\"", raw(0xF0, 0x80, 0x80, 0x80), "\":1}"), null)
                .fieldNames().next());
        // a lone surrogate escape is a char in a value, an error in a name
        assertEquals("\uD800", text(bytes("{\"k\":\"\\ud800\"}")));
        assertFalse(JsonAgreement.assertAgree("lone surrogate name", bytes("{\"\\ud800\":1}"), Set.of()));
        // numbers
        assertInstanceOf(com.fasterxml.jackson.databind.node.IntNode.class, parse(bytes("{\"k\":-0}"), null).get("k"));
        assertEquals(Double.POSITIVE_INFINITY, parse(bytes("{\"k\":1e400}"), null).get("k").doubleValue());
        assertTrue(JsonAgreement.assertAgree("1000 digits", bytes("{\"k\":" + "7".repeat(1000) + "}"), Set.of()));
        assertFalse(JsonAgreement.assertAgree("1001 digits", bytes("{\"k\":" + "7".repeat(1001) + "}"), Set.of()));
        // nesting, counting the line's object
        assertTrue(JsonAgreement.assertAgree("2000", bytes("{\"k\":" + "[".repeat(1999) + "]".repeat(1999) + "}"),
                Set.of()));
        assertFalse(JsonAgreement.assertAgree("2001", bytes("{\"k\":" + "[".repeat(2000) + "]".repeat(2000) + "}"),
                Set.of()));
        // names up to 50000 bytes
        assertTrue(JsonAgreement.assertAgree("name", bytes("{\"" + "\u00e9".repeat(25_000) + "\":1}"), null));
        assertFalse(JsonAgreement.assertAgree("name", bytes("{\"" + "\u00e9".repeat(25_000) + "a\":1}"), null));
        // a UTF-8 byte order mark is skipped; UTF-16 is read as such (by Jackson, JsonLine hands it over)
        assertTrue(JsonAgreement.assertAgree("bom", bytes(raw(0xEF, 0xBB, 0xBF), "{}"), null));
        assertEquals(1, parse("{\"a\":1}".getBytes(StandardCharsets.UTF_16LE), null).get("a").intValue());
        assertFalse(JsonLine.plainUtf8("{}".getBytes(StandardCharsets.UTF_16LE), 0, 4));
    }

    @Test
    void offsetAndLengthAreHonoured() throws Exception {
        byte[] buf = bytes("xx{\"a\":[1,\"b\"]}\n{\"c\":2}yy");
        ObjectNode first = Json.parseObject(buf, 2, 14, null);
        assertEquals("{\"a\":[1,\"b\"]}", first.toString());
        assertEquals("{\"c\":2}", Json.parseObject(buf, 16, 7, Set.of("c")).toString());
        assertEquals("{}", Json.parseObject(buf, 16, 7, Set.of("a")).toString());
    }

    private static ObjectNode parse(byte[] line, Set<String> keep) {
        JsonAgreement.assertAgree("pinned", line, keep);
        return JsonAgreement.fast(line, keep).tree();
    }

    private static String text(byte[] line) {
        return parse(line, null).get("k").textValue();
    }

    /**
     * Jackson's shared table of names answers a name with 0xFF bytes before its last group from a shorter name it met
     * before; JsonLine, and Jackson with a table of its own (the tests' oracle), reject the line.
     */
    @Test
    void aNameHoldingFfIsRejectedWhateverJacksonReadBefore() throws Exception {
        byte[] shorter = "{\"ole\":1}".getBytes(StandardCharsets.US_ASCII);
        byte[] padded = {'{', '"', (byte) 0xFF, 'o', 'l', 'e', '"', ':', '2', '}'};
        var shared = Json.newFactory();
        assertFalse(JsonAgreement.jackson(padded, null).accepted(), "a table of its own: rejected");
        Json.parseObjectJackson(shared, shorter, 0, shorter.length, null);
        ObjectNode misread = Json.parseObjectJackson(shared, padded, 0, padded.length, null);
        assertEquals(2, misread.path("ole").asInt(), "the shared table reads the name as \"ole\"");
        assertFalse(JsonAgreement.fast(padded, null).accepted(), "JsonLine rejects it");
        JsonAgreement.assertAgree("0xFF name", padded, null);
    }
}
