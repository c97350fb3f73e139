package org.agentworkspace.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Principal;
import org.agentworkspace.api.WorkspaceException;

/** One request as a handler sees it: the caller, typed access to the body and parameters, and JSON replies. */
public final class Call {
    private final ServerRequest req;
    private final ServerResponse res;
    private final Principal principal;
    private final Json json;
    private final long maxBody;
    private final BodyShape shape;

    Call(ServerRequest req, ServerResponse res, Principal principal, Json json, long maxBody, BodyShape shape) {
        this.req = req;
        this.res = res;
        this.principal = principal;
        this.json = json;
        this.maxBody = maxBody;
        this.shape = Objects.requireNonNull(shape, "shape");
    }

    public ServerRequest request() {
        return req;
    }

    public ServerResponse response() {
        return res;
    }

    /** The authenticated caller; public routes have none. */
    public Principal principal() {
        return Objects.requireNonNull(principal, "public routes have no principal");
    }

    public Optional<Principal> findPrincipal() {
        return Optional.ofNullable(principal);
    }

    /**
     * The JSON body as a tree, or an empty object when the request has no body. The {@link Guard} has already read
     * it, and refused a top-level field the OpenAPI document does not list for this route ({@link BodyShape}).
     */
    public JsonNode body() {
        if (body == null) {
            body = readBody();
        }
        return body;
    }

    private JsonNode body;

    /** Reads and checks the body before the handler runs: an unknown field is refused before anything is done. */
    void checkBody() {
        body();
    }

    private JsonNode readBody() {
        byte[] bytes = bodyBytes();
        if (bytes.length == 0) {
            return json.mapper().createObjectNode();
        }
        JsonNode node = json.parse(bytes);
        if (!node.isObject()) {
            throw new WorkspaceException.Validation(ErrorCodes.VALIDATION_FAILED, "the request body must be a JSON object");
        }
        shape.check(node);
        return node;
    }

    private byte[] bodyBytes() {
        if (!req.content().hasEntity()) {
            return new byte[0];
        }
        try (InputStream in = req.content().inputStream()) {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBody + 1));
            if (bytes.length > maxBody) {
                throw new WorkspaceException.PayloadTooLarge("the request body is over " + maxBody + " bytes");
            }
            return bytes;
        } catch (IOException e) {
            throw new WorkspaceException.Validation(ErrorCodes.VALIDATION_FAILED, "the request body could not be read");
        }
    }

    /** A required string field of the body. */
    public static String requiredString(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            throw WorkspaceException.Validation.of(field + " is required");
        }
        if (!v.isTextual()) {
            throw WorkspaceException.Validation.of(field + " must be a string");
        }
        return v.asText();
    }

    /** An optional string field of the body. */
    public static Optional<String> optionalString(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        if (!v.isTextual()) {
            throw WorkspaceException.Validation.of(field + " must be a string");
        }
        return Optional.of(v.asText());
    }

    /** An optional boolean field of the body. */
    public static boolean optionalBoolean(JsonNode body, String field, boolean otherwise) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return otherwise;
        }
        if (!v.isBoolean()) {
            throw WorkspaceException.Validation.of(field + " must be true or false");
        }
        return v.asBoolean();
    }

    /** A required boolean field of the body. */
    public static boolean requiredBoolean(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || !v.isBoolean()) {
            throw WorkspaceException.Validation.of(field + " is required and must be true or false");
        }
        return v.asBoolean();
    }

    /** An optional array of strings. */
    public static Optional<List<String>> optionalStrings(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        if (!v.isArray()) {
            throw WorkspaceException.Validation.of(field + " must be an array of strings");
        }
        List<String> out = new java.util.ArrayList<>();
        for (JsonNode n : v) {
            if (!n.isTextual()) {
                throw WorkspaceException.Validation.of(field + " must be an array of strings");
            }
            out.add(n.asText());
        }
        return Optional.of(out);
    }

    /** A numeric path parameter; anything else is a 404 of {@code notFoundCode} (ids are opaque to callers). */
    public long pathId(String name, String notFoundCode) {
        String raw = req.path().pathParameters().get(name);
        try {
            long id = Long.parseLong(raw);
            if (id <= 0) {
                throw new NumberFormatException();
            }
            return id;
        } catch (NumberFormatException e) {
            throw new WorkspaceException.NotFound(notFoundCode, "no such " + name.replace("Id", ""));
        }
    }

    public Optional<String> query(String name) {
        return req.query().first(name).asOptional();
    }

    /** A required query parameter (decoded once); missing is a 400 naming it. */
    public String requiredQuery(String name) {
        return query(name).orElseThrow(() -> WorkspaceException.Validation.of(name + " is required"));
    }

    /** An optional boolean query parameter: {@code true} or {@code false}, anything else is a 400. */
    public boolean booleanQuery(String name, boolean otherwise) {
        Optional<String> v = query(name);
        if (v.isEmpty()) {
            return otherwise;
        }
        return switch (v.get()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw WorkspaceException.Validation.of(name + " must be true or false");
        };
    }

    /** A path parameter as decoded by the router (opaque text: only ever looked up, never used as a path). */
    public String pathParam(String name) {
        return req.path().pathParameters().get(name);
    }

    public void ok(Object body) {
        send(Status.OK_200, body);
    }

    public void created(Object body) {
        send(Status.CREATED_201, body);
    }

    /** {@code {success: true}} plus any extra fields. */
    public void ack(Object... keyValues) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("success", true);
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            body.put((String) keyValues[i], keyValues[i + 1]);
        }
        ok(body);
    }

    public void send(Status status, Object body) {
        res.status(status);
        res.header(HeaderValues.CONTENT_TYPE_JSON);
        res.send(json.write(body));
    }

    /** Sends an already serialized JSON body with status 200 (answers cached as bytes). */
    public void okJson(byte[] serialized) {
        res.status(Status.OK_200);
        res.header(HeaderValues.CONTENT_TYPE_JSON);
        res.send(serialized);
    }

    /** The JSON bytes {@link #send} would write for {@code body}. */
    public byte[] serialize(Object body) {
        return json.write(body);
    }

    /** Marks the response as never to be cached (secrets shown once). */
    public Call noStore() {
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        return this;
    }
}
