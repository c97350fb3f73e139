package org.agentworkspace.providers.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * Immutable JSON reader/writer and null-safe accessors for the adapters, and their one source of Jackson mappers (the
 * adapters do not depend on the engine's {@code JsonMappers}; ArchitectureTest holds both).
 */
public final class Json {

    private static final JsonMapper MAPPER = builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .build();
    private static final ObjectReader READER = MAPPER.reader();
    private static final ObjectWriter WRITER = MAPPER.writer();

    private Json() {
    }

    /** The adapters' shared mapper (never reconfigure it). */
    public static JsonMapper mapper() {
        return MAPPER;
    }

    /** A builder for a mapper with features of its own, built once and kept. */
    public static JsonMapper.Builder builder() {
        return JsonMapper.builder();
    }

    /** Parses one JSON document (the whole string). */
    public static JsonNode parse(String text) throws JsonProcessingException {
        return READER.readTree(text);
    }

    /** Compact JSON text of a node. */
    public static String write(JsonNode node) {
        try {
            return WRITER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON tree", e);
        }
    }

    /** Compact JSON text of a plain value (maps, lists, strings, numbers). */
    public static String writeValue(Object value) {
        try {
            return WRITER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    /** A new empty object node. */
    public static com.fasterxml.jackson.databind.node.ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** The text of a string field, or {@code null} when missing or not a string. */
    public static String text(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    /** The value of an integral field, or 0 when missing or not a number. */
    public static long count(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v != null && v.isNumber() ? Math.max(0, v.asLong()) : 0;
    }

    /** The value of a numeric field, or {@code null} when missing or not a number. */
    public static Double number(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v != null && v.isNumber() ? v.asDouble() : null;
    }

    /** JSON text for a tool input: the node itself, a string that holds JSON, or {@code {}} when absent. */
    public static String inputJson(JsonNode input) {
        if (input == null || input.isNull() || input.isMissingNode()) {
            return "{}";
        }
        if (input.isTextual()) {
            String s = input.asText();
            try {
                return write(parse(s));
            } catch (JsonProcessingException e) {
                return write(input);
            }
        }
        return write(input);
    }

    /**
     * Readable text of a tool output: a string as is; an array of content blocks as their joined {@code text}
     * fields; anything else as JSON text; empty for null/missing.
     */
    public static String outputText(JsonNode output) {
        if (output == null || output.isNull() || output.isMissingNode()) {
            return "";
        }
        if (output.isTextual()) {
            return output.asText();
        }
        if (output.isArray()) {
            StringBuilder sb = new StringBuilder();
            boolean allText = true;
            for (JsonNode block : output) {
                String t = text(block, "text");
                if (t == null) {
                    allText = false;
                    break;
                }
                sb.append(t);
            }
            if (allText) {
                return sb.toString();
            }
        }
        return write(output);
    }
}
