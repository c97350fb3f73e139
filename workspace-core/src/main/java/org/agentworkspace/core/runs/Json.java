package org.agentworkspace.core.runs;

import java.io.IOException;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.agentworkspace.core.json.JsonMappers;

/** The JSON the engine writes and checks: payloads are always one JSON object. One instance per engine. */
final class Json {
    private final ObjectMapper mapper = JsonMappers.shared();
    private final JsonFactory factory = mapper.getFactory();

    ObjectNode object() {
        return mapper.createObjectNode();
    }

    String write(ObjectNode node) {
        return node.toString();
    }

    /** {@code {"line":"…"}}, with {@code "truncated":true} when the line was cut. */
    String line(String line, boolean truncated) {
        char[] quoted = JsonStringEncoder.getInstance().quoteAsString(line);
        StringBuilder b = new StringBuilder(quoted.length + 32).append("{\"line\":\"").append(quoted).append('"');
        if (truncated) {
            b.append(",\"truncated\":true");
        }
        return b.append('}').toString();
    }

    /** The parsed object, or null when {@code text} is not JSON. */
    JsonNode tree(String text) {
        try {
            return mapper.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }


    /** True when {@code text} is exactly one JSON object (nothing before or after it). */
    boolean isObject(String text) {
        if (text == null) {
            return false;
        }
        try (JsonParser p = factory.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            p.skipChildren();
            return p.nextToken() == null;
        } catch (IOException e) {
            return false;
        }
    }

    /** The status named by a status entry's payload. */
    Optional<RunStatus> statusOf(String payload) {
        try {
            JsonNode n = mapper.readTree(payload);
            JsonNode s = n == null ? null : n.get("status");
            return s == null || !s.isTextual() ? Optional.empty() : Optional.of(RunStatus.ofWireName(s.asText()));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
