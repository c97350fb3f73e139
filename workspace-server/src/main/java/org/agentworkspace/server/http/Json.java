package org.agentworkspace.server.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.json.JsonMappers;

/**
 * The server's one JSON mapper. Request bodies must be a single JSON document (no trailing data, no duplicate keys,
 * nesting at most 64 deep); unknown properties are ignored so newer clients keep working.
 */
public final class Json {
    private final ObjectMapper mapper;

    /** Strings in request bodies up to 16 MiB. */
    public Json() {
        this(16L * 1024 * 1024);
    }

    /**
     * @param maxStringLength the longest string a request body may hold (at least 16 MiB is used), so the content
     *                        of the largest file a route accepts always fits
     */
    public Json(long maxStringLength) {
        int limit = (int) Math.min(Integer.MAX_VALUE - 16, Math.max(16L * 1024 * 1024, maxStringLength));
        JsonMapper m = JsonMappers.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .serializationInclusion(JsonInclude.Include.ALWAYS)
                .build();
        m.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64)
                .maxStringLength(limit).build());
        this.mapper = m;
    }

    public ObjectMapper mapper() {
        return mapper;
    }

    public byte[] write(Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("response could not be serialised", e);
        }
    }

    /** Parses a request body into a tree; any syntax problem is a 400 INVALID_JSON without echoing the input. */
    public JsonNode parse(byte[] body) {
        try {
            JsonNode node = mapper.readTree(body);
            if (node == null || node.isMissingNode()) {
                throw new WorkspaceException.Validation(ErrorCodes.INVALID_JSON, "the request body is empty");
            }
            return node;
        } catch (java.io.IOException e) {
            throw new WorkspaceException.Validation(ErrorCodes.INVALID_JSON, "the request body is not valid JSON");
        }
    }
}
