package org.agentworkspace.core.history;

import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Set;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.history.Usage;
import org.agentworkspace.core.json.JsonMappers;

/** Jackson helpers shared by the readers: selective parsing of one line, and lenient field access. */
final class Json {
    static final ObjectMapper MAPPER;
    static final JsonFactory FACTORY;

    static {
        MAPPER = JsonMappers.over(newFactory());
        FACTORY = MAPPER.getFactory();
    }

    /**
     * A factory with the readers' limits and a table of field names of its own. The tests' oracle takes a new one
     * per line: Jackson looks a name up in that table by its bytes packed four to an int, padding a short last group
     * with 0xFF bytes, and answers from it without decoding, so a name whose bytes hold 0xFF there (never valid
     * UTF-8) is read as the shorter name seen before ({@code "\xFFole"} as {@code "ole"} once any parser of the
     * factory has met {@code "ole"}); with a shared table the verdict on such a line depends on what the process
     * read earlier. {@link JsonLine} rejects such a name, as Jackson does when it has not met the shorter one.
     */
    static JsonFactory newFactory() {
        return JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxStringLength(HistoryReader.MAX_LINE_BYTES)
                        .maxNestingDepth(2000)
                        .build())
                .build();
    }

    private Json() {
    }

    /**
     * Parses one JSON object from {@code bytes[off, off+len)}, keeping only the top-level fields in {@code keep} (all
     * when null): the others are skipped without building nodes. Throws when the bytes are not exactly one JSON
     * object. {@link JsonLine} does it: the tree and the accepted lines of {@link #parseObjectJackson}, in 26-37 % less
     * time and with 23-30 % less allocation per byte (JsonLineSpeed in the tests, real and synthetic history). The rare
     * line Jackson would read as UTF-16 or UTF-32 goes to Jackson.
     */
    static ObjectNode parseObject(byte[] bytes, int off, int len, Set<String> keep) throws IOException {
        if (JsonLine.plainUtf8(bytes, off, len)) {
            return JsonLine.parse(bytes, off, len, keep);
        }
        return parseObjectJackson(bytes, off, len, keep);
    }

    /**
     * {@link #parseObject} with Jackson's streaming parser and {@code readTree} per kept field: the behaviour
     * {@link JsonLine} reproduces (its tests' oracle), and the reader of lines that are not UTF-8 to Jackson.
     */
    static ObjectNode parseObjectJackson(byte[] bytes, int off, int len, Set<String> keep) throws IOException {
        return parseObjectJackson(FACTORY, bytes, off, len, keep);
    }

    /** {@link #parseObjectJackson(byte[], int, int, Set)} with parsers of the given factory. */
    static ObjectNode parseObjectJackson(JsonFactory factory, byte[] bytes, int off, int len, Set<String> keep)
            throws IOException {
        try (JsonParser p = factory.createParser(bytes, off, len)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new JsonParseException(p, "not a JSON object");
            }
            ObjectNode out = readObject(p, keep);
            if (p.nextToken() != null) {
                throw new JsonParseException(p, "trailing content after the JSON object");
            }
            return out;
        }
    }

    /** Reads the object whose START_OBJECT is the current token, keeping the fields in {@code keep}. */
    static ObjectNode readObject(JsonParser p, Set<String> keep) throws IOException {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            if (keep == null || keep.contains(name)) {
                out.set(name, MAPPER.readTree(p));
            } else {
                p.skipChildren();
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new JsonParseException(p, "unterminated JSON object");
        }
        return out;
    }

    /** The text of a string node, else null. */
    static String str(JsonNode n) {
        return n != null && n.isTextual() ? n.textValue() : null;
    }

    static String str(JsonNode n, String field) {
        return n == null ? null : str(n.get(field));
    }

    static boolean bool(JsonNode n, String field) {
        JsonNode v = n == null ? null : n.get(field);
        return v != null && v.isBoolean() && v.booleanValue();
    }

    static long lng(JsonNode n, String field) {
        JsonNode v = n == null ? null : n.get(field);
        return v != null && v.isNumber() ? Math.max(0, v.asLong()) : 0;
    }

    /** Compact JSON text of a node (null stays null). */
    static String json(JsonNode n) {
        if (n == null || n.isMissingNode()) {
            return null;
        }
        return n.toString();
    }

    /** {@code raw} if it is valid JSON, else {@code raw} as a JSON string literal. */
    static String jsonOrQuoted(String raw) {
        if (raw == null) {
            return null;
        }
        try {
            MAPPER.readTree(raw);
            return raw;
        } catch (IOException e) {
            return quote(raw);
        }
    }

    static String quote(String s) {
        return JsonNodeFactory.instance.textNode(s).toString();
    }

    /** ISO-8601 text or epoch milliseconds to an Instant; null when absent or unparseable. */
    static Instant instant(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (n.isNumber()) {
            return epoch(n.asLong());
        }
        String s = n.asText();
        if (s.isBlank()) {
            return null;
        }
        Instant fast = utc(s);
        if (fast != null) {
            return fast;
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            try {
                return OffsetDateTime.parse(s).toInstant();
            } catch (DateTimeParseException e2) {
                return null;
            }
        }
    }

    /**
     * The form every CLI writes, {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z}, parsed without the general formatter (a tenth
     * of its cost, and every history line carries one); null for anything else, which {@link Instant#parse} then
     * handles (or rejects).
     */
    static Instant utc(String s) {
        int n = s.length();
        if (n < 20 || n > 30 || s.charAt(n - 1) != 'Z' || s.charAt(4) != '-' || s.charAt(7) != '-'
                || s.charAt(10) != 'T' || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59
                || second < 0 || second > 59) {
            return null;
        }
        int nanos = 0;
        if (n > 20) {
            if (s.charAt(19) != '.' || n - 21 < 1 || n - 21 > 9) {
                return null;
            }
            int fraction = digits(s, 20, n - 21);
            if (fraction < 0) {
                return null;
            }
            nanos = fraction;
            for (int i = n - 21; i < 9; i++) {
                nanos *= 10;
            }
        } else if (s.charAt(19) != 'Z') {
            return null;
        }
        if (day > monthLength(year, month)) {
            return null;
        }
        return Instant.ofEpochSecond(epochDay(year, month, day) * 86_400L + hour * 3_600L + minute * 60L + second,
                nanos);
    }

    private static final int[] MONTH_DAYS = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

    /** Days in the month of the proleptic Gregorian calendar (what {@link java.time.YearMonth#lengthOfMonth} says). */
    static int monthLength(int year, int month) {
        boolean leap = (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);
        return month == 2 && leap ? 29 : MONTH_DAYS[month - 1];
    }

    /**
     * {@code LocalDate.of(year, month, day).toEpochDay()} for a valid date with a year of four digits, by the days-from-
     * civil arithmetic (years counted from March, so the leap day ends a year), without creating a LocalDate for every
     * timestamp of a history.
     */
    static long epochDay(int year, int month, int day) {
        int y = month <= 2 ? year - 1 : year;
        int era = Math.floorDiv(y, 400);
        int yoe = y - era * 400;
        int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146_097L + doe - 719_468L;
    }

    /** The decimal number in {@code s[from, from + len)}, or -1 when a character is not a digit. */
    private static int digits(String s, int from, int len) {
        int v = 0;
        for (int i = from; i < from + len; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** Epoch milliseconds (or seconds, for values too small to be milliseconds) to an Instant. */
    static Instant epoch(long v) {
        if (v <= 0) {
            return null;
        }
        return v < 100_000_000_000L ? Instant.ofEpochSecond(v) : Instant.ofEpochMilli(v);
    }

    /** A Usage unless every count is 0 or the node is absent. */
    static Usage usage(long input, long output, long cacheRead, long cacheWrite) {
        if (input == 0 && output == 0 && cacheRead == 0 && cacheWrite == 0) {
            return null;
        }
        return new Usage(Math.max(0, input), Math.max(0, output), Math.max(0, cacheRead), Math.max(0, cacheWrite));
    }

    /**
     * The text of a content value: a string; or an array whose text items ({@code {type:"text"|"output_text"|
     * "input_text", text}}, {@code {text}}) are joined with newlines, images shown as {@code [image]}.
     */
    static String contentText(JsonNode content) {
        if (content == null || content.isNull()) {
            return "";
        }
        if (content.isTextual()) {
            return content.textValue();
        }
        if (content.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode item : content) {
                String piece = null;
                if (item.isTextual()) {
                    piece = item.textValue();
                } else if (item.has("text") && item.get("text").isTextual()) {
                    piece = item.get("text").textValue();
                } else if ("image".equals(str(item, "type")) || "input_image".equals(str(item, "type"))) {
                    piece = "[image]";
                }
                if (piece != null) {
                    if (!sb.isEmpty()) {
                        sb.append('\n');
                    }
                    sb.append(piece);
                }
            }
            return sb.toString();
        }
        if (content.isObject() && content.has("text")) {
            return content.get("text").asText();
        }
        return content.toString();
    }
}
