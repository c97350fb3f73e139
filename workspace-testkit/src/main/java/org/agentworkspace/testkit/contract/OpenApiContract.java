package org.agentworkspace.testkit.contract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.dialect.Dialects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The OpenAPI 3.1 document of the service, used as an oracle: finds the operation for a concrete request and checks
 * a response (status, content type, required headers, JSON body against the schema, error code against its status).
 *
 * <p>Schemas are validated as JSON Schema 2020-12 (the OpenAPI 3.1 dialect) with format assertions on; references
 * such as {@code #/components/schemas/User} resolve inside the document.
 */
public final class OpenApiContract {
    /** Classpath location of the bundled document (copied from docs/openapi.yaml by the build). */
    public static final String BUNDLED_RESOURCE = "openapi.yaml";

    private static final String DOCUMENT_IRI = "https://agentworkspace.invalid/openapi.json";
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

    private final JsonNode document;
    private final List<PathTemplate> templates;
    private final Map<String, Integer> errorCodes;
    private final SchemaRegistry registry;
    private final ObjectMapper json;
    private final Map<String, Schema> schemas = new ConcurrentHashMap<>();

    private OpenApiContract(JsonNode document) {
        if (!document.path("openapi").asText().startsWith("3.1")) {
            throw new IllegalArgumentException("not an OpenAPI 3.1 document: openapi=" + document.path("openapi"));
        }
        this.document = document;
        this.json = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
        List<PathTemplate> list = new ArrayList<>();
        document.path("paths").properties().forEach(e -> list.add(PathTemplate.parse(e.getKey(), e.getValue())));
        // concrete segments win over templated ones, as OpenAPI requires
        list.sort(Comparator.comparingInt(PathTemplate::literalCount).reversed());
        this.templates = List.copyOf(list);
        Map<String, Integer> codes = new LinkedHashMap<>();
        document.at("/components/schemas/ErrorResponse/x-error-codes").properties()
                .forEach(e -> codes.put(e.getKey(), e.getValue().asInt()));
        this.errorCodes = Map.copyOf(codes);
        String documentJson;
        try {
            documentJson = json.writeValueAsString(document);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("document cannot be written as JSON", e);
        }
        this.registry = SchemaRegistry.withDefaultDialect(Dialects.getOpenApi31(), builder -> builder
                .schemas(Map.of(DOCUMENT_IRI, documentJson))
                .schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));
    }

    /** The document bundled in this jar (docs/openapi.yaml of the same build). */
    public static OpenApiContract bundled() {
        try (InputStream in = OpenApiContract.class.getResourceAsStream(BUNDLED_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("bundled OpenAPI document missing: " + BUNDLED_RESOURCE);
            }
            return fromYaml(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A document given as YAML (or JSON, which is YAML). */
    public static OpenApiContract fromYaml(String yaml) {
        try {
            return new OpenApiContract(new YAMLMapper().readTree(yaml));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("OpenAPI document does not parse: " + e.getOriginalMessage(), e);
        }
    }

    /** The parsed document (do not modify). */
    public JsonNode document() {
        return document;
    }

    /** The path templates of the document, for example {@code /api/projects/{projectName}}. */
    public Set<String> pathTemplates() {
        Set<String> out = new TreeSet<>();
        templates.forEach(t -> out.add(t.template()));
        return out;
    }

    /** The stable error codes with their HTTP status ({@code x-error-codes} of {@code ErrorResponse}). */
    public Map<String, Integer> errorCodes() {
        return errorCodes;
    }

    /** Finds the documented operation for a method and a concrete path (a query string is ignored). */
    public Optional<Operation> findOperation(String method, String path) {
        String m = method.toLowerCase(Locale.ROOT);
        String p = stripQuery(path);
        for (PathTemplate t : templates) {
            if (t.matches(p) && t.item().has(m)) {
                return Optional.of(new Operation(m, t.template(), t.item().get(m)));
            }
        }
        return Optional.empty();
    }

    /**
     * Checks one response against the document and returns what is wrong with it (empty when it conforms).
     *
     * @param method the request method
     * @param requestTarget the request path, with or without query string
     * @param status the response status
     * @param headers the response headers (names compared case-insensitively)
     * @param body the response body as text (may be empty)
     */
    public List<String> validateResponse(String method, String requestTarget, int status,
                                         Map<String, List<String>> headers, String body) {
        List<String> violations = new ArrayList<>();
        String m = method.toLowerCase(Locale.ROOT);
        String path = stripQuery(requestTarget);
        String where = method.toUpperCase(Locale.ROOT) + " " + path + " -> " + status;
        List<PathTemplate> matching = templates.stream().filter(t -> t.matches(path)).toList();
        if (matching.isEmpty()) {
            if (status != 404) {
                violations.add(where + ": the route is not documented, so only 404 ROUTE_NOT_FOUND is allowed");
            }
            checkErrorBody(where, status, headers, body, violations);
            return violations;
        }
        Optional<PathTemplate> withMethod = matching.stream().filter(t -> t.item().has(m)).findFirst();
        if (withMethod.isEmpty()) {
            if (status != 405 && status != 404) {
                violations.add(where + ": the method is not documented for this path, so only 405 or 404 is allowed");
            }
            checkErrorBody(where, status, headers, body, violations);
            return violations;
        }
        PathTemplate template = withMethod.get();
        JsonNode operation = template.item().get(m);
        String opPointer = "/paths/" + escape(template.template()) + "/" + m;
        where = where + " (" + operation.path("operationId").asText("?") + ")";
        JsonNode responses = operation.path("responses");
        String key = String.valueOf(status);
        if (!responses.has(key)) {
            key = (status / 100) + "XX";
        }
        if (!responses.has(key) && status >= 400 && responses.has("default")) {
            key = "default";
        }
        if (!responses.has(key)) {
            violations.add(where + ": status " + status + " is not documented (documented: "
                    + fieldNames(responses) + ")");
            if (status >= 400) {
                checkErrorBody(where, status, headers, body, violations);
            }
            return violations;
        }
        Resolved response = resolve(responses.get(key), opPointer + "/responses/" + escape(key));
        checkHeaders(where, response.node().path("headers"), headers, violations);
        JsonNode content = response.node().path("content");
        if (content.isEmpty()) {
            if (body != null && !body.isEmpty() && status != 101) {
                violations.add(where + ": documented without a body, but one was sent");
            }
            return violations;
        }
        Optional<String> contentType = header(headers, "content-type");
        if (contentType.isEmpty()) {
            violations.add(where + ": no Content-Type (documented: " + fieldNames(content) + ")");
            return violations;
        }
        String mediaType = contentType.get().split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        String mediaKey = null;
        for (String candidate : fieldNames(content)) {
            if (candidate.equalsIgnoreCase(mediaType)) {
                mediaKey = candidate;
            }
        }
        if (mediaKey == null) {
            violations.add(where + ": Content-Type " + contentType.get() + " is not documented (documented: "
                    + fieldNames(content) + ")");
            return violations;
        }
        if (isJson(mediaType)) {
            String schemaPointer = response.pointer() + "/content/" + escape(mediaKey) + "/schema";
            validateJson(where, schemaPointer, body, violations);
            if (status >= 400) {
                checkErrorCodeStatus(where, status, body, violations);
            }
        }
        return violations;
    }

    /**
     * Checks one server-sent event of a stream response against the response's {@code x-sse-events}: the event name
     * must be listed and its data must be JSON valid against the listed schema.
     */
    public List<String> validateEvent(String method, String requestTarget, int status, String event, String data) {
        List<String> violations = new ArrayList<>();
        String m = method.toLowerCase(Locale.ROOT);
        String path = stripQuery(requestTarget);
        String where = method.toUpperCase(Locale.ROOT) + " " + path + " -> " + status + " event '" + event + "'";
        Optional<PathTemplate> template = templates.stream().filter(t -> t.matches(path) && t.item().has(m)).findFirst();
        if (template.isEmpty()) {
            violations.add(where + ": the route is not documented");
            return violations;
        }
        JsonNode responses = template.get().item().get(m).path("responses");
        String key = String.valueOf(status);
        if (!responses.has(key)) {
            violations.add(where + ": status is not documented");
            return violations;
        }
        Resolved response = resolve(responses.get(key),
                "/paths/" + escape(template.get().template()) + "/" + m + "/responses/" + key);
        JsonNode events = response.node().path("x-sse-events");
        if (!events.has(event)) {
            violations.add(where + ": event is not documented (documented: " + fieldNames(events) + ")");
            return violations;
        }
        validateJson(where, response.pointer() + "/x-sse-events/" + escape(event), data, violations);
        return violations;
    }

    /** Validates a JSON text against the schema at a JSON pointer of the document, for example a component schema. */
    public List<String> validateJson(String schemaPointer, String jsonText) {
        List<String> violations = new ArrayList<>();
        validateJson("#" + schemaPointer, schemaPointer, jsonText, violations);
        return violations;
    }

    private void validateJson(String where, String schemaPointer, String body, List<String> violations) {
        if (body == null || body.isBlank()) {
            violations.add(where + ": empty body, JSON expected");
            return;
        }
        try {
            json.readTree(body);
        } catch (JsonProcessingException e) {
            violations.add(where + ": body is not valid JSON (" + e.getOriginalMessage() + "): " + abbreviate(body));
            return;
        }
        Schema schema = schemas.computeIfAbsent(schemaPointer,
                p -> registry.getSchema(SchemaLocation.of(DOCUMENT_IRI + "#" + p)));
        for (com.networknt.schema.Error error : schema.validate(body, InputFormat.JSON)) {
            String location = String.valueOf(error.getInstanceLocation());
            violations.add(where + ": " + (location.isEmpty() || "$".equals(location) ? "body" : location) + " "
                    + error.getMessage());
        }
    }

    private void checkErrorBody(String where, int status, Map<String, List<String>> headers, String body,
                                List<String> violations) {
        Optional<String> contentType = header(headers, "content-type");
        if (contentType.isEmpty() || !isJson(contentType.get().split(";", 2)[0].trim().toLowerCase(Locale.ROOT))) {
            violations.add(where + ": error responses must be the JSON envelope, Content-Type was "
                    + contentType.orElse("(none)"));
            return;
        }
        validateJson(where, "/components/schemas/ErrorResponse", body, violations);
        checkErrorCodeStatus(where, status, body, violations);
    }

    private void checkErrorCodeStatus(String where, int status, String body, List<String> violations) {
        JsonNode node;
        try {
            node = json.readTree(body);
        } catch (JsonProcessingException e) {
            return; // reported by the schema check
        }
        JsonNode code = node.path("error").path("code");
        if (code.isTextual() && errorCodes.containsKey(code.asText()) && errorCodes.get(code.asText()) != status) {
            violations.add(where + ": error code " + code.asText() + " belongs to status "
                    + errorCodes.get(code.asText()) + ", not " + status);
        }
    }

    private void checkHeaders(String where, JsonNode documented, Map<String, List<String>> headers,
                              List<String> violations) {
        documented.properties().forEach(e -> {
            String name = e.getKey();
            JsonNode header = resolve(e.getValue(), "").node();
            Optional<String> value = header(headers, name);
            if (value.isEmpty()) {
                if (header.path("required").asBoolean(false)) {
                    violations.add(where + ": required header " + name + " is missing");
                }
                return;
            }
            JsonNode schema = resolve(header.path("schema"), "").node();
            if (schema.has("const")) {
                String expected = schema.get("const").asText();
                boolean found = false;
                for (String token : value.get().split(",")) {
                    found |= token.trim().equalsIgnoreCase(expected);
                }
                if (!found) {
                    violations.add(where + ": header " + name + " is '" + value.get() + "', expected " + expected);
                }
            } else if ("integer".equals(schema.path("type").asText())) {
                try {
                    long parsed = Long.parseLong(value.get().trim());
                    if (schema.has("minimum") && parsed < schema.get("minimum").asLong()) {
                        violations.add(where + ": header " + name + " is below its minimum: " + parsed);
                    }
                } catch (NumberFormatException ex) {
                    violations.add(where + ": header " + name + " is not an integer: '" + value.get() + "'");
                }
            }
        });
    }

    private Resolved resolve(JsonNode node, String pointer) {
        JsonNode current = node;
        String at = pointer;
        for (int hops = 0; current.has("$ref") && hops < 16; hops++) {
            String ref = current.get("$ref").asText();
            if (!ref.startsWith("#/")) {
                throw new IllegalArgumentException("only local references are supported: " + ref);
            }
            at = ref.substring(1);
            current = document.at(at);
            if (current.isMissingNode()) {
                throw new IllegalArgumentException("unresolved reference " + ref);
            }
        }
        return new Resolved(current, at);
    }

    private static Optional<String> header(Map<String, List<String>> headers, String name) {
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if (e.getKey() != null && e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
                return Optional.of(String.join(", ", e.getValue()));
            }
        }
        return Optional.empty();
    }

    private static boolean isJson(String mediaType) {
        return mediaType.equals("application/json") || mediaType.endsWith("+json");
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    static String stripQuery(String target) {
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        int hash = path.indexOf('#');
        return hash < 0 ? path : path.substring(0, hash);
    }

    /** Escapes one JSON pointer token (RFC 6901). */
    static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }

    /** A documented operation. */
    public record Operation(String method, String pathTemplate, JsonNode node) {
        /** The operationId. */
        public String operationId() {
            return node.path("operationId").asText();
        }

        /** The scope an API key needs ({@code x-required-scope}), when there is one. */
        public Optional<String> requiredScope() {
            JsonNode scope = node.get("x-required-scope");
            return scope == null || scope.isNull() ? Optional.empty() : Optional.of(scope.asText());
        }

        /** Whether only administrators may call it. */
        public boolean adminOnly() {
            return node.path("x-admin-only").asBoolean(false);
        }

        /** Whether only interactive sessions (not API keys) may call it. */
        public boolean sessionOnly() {
            return node.path("x-session-only").asBoolean(false);
        }

        /** Whether the operation is public ({@code security: []}). */
        public boolean isPublic() {
            JsonNode security = node.get("security");
            return security != null && security.isArray() && security.isEmpty();
        }
    }

    private record Resolved(JsonNode node, String pointer) {
    }

    private record PathTemplate(String template, JsonNode item, String[] segments, int literalCount) {
        static PathTemplate parse(String template, JsonNode item) {
            String[] segments = template.split("/", -1);
            int literals = 0;
            for (String s : segments) {
                if (!isParameter(s)) {
                    literals++;
                }
            }
            for (String key : iterable(item)) {
                if (!METHODS.contains(key) && !key.equals("parameters") && !key.equals("summary")
                        && !key.equals("description") && !key.equals("servers") && !key.startsWith("x-")) {
                    throw new IllegalArgumentException("unexpected key '" + key + "' in path item " + template);
                }
            }
            return new PathTemplate(template, item, segments, literals);
        }

        boolean matches(String path) {
            String[] parts = path.split("/", -1);
            if (parts.length != segments.length) {
                return false;
            }
            for (int i = 0; i < parts.length; i++) {
                if (isParameter(segments[i])) {
                    if (parts[i].isEmpty()) {
                        return false;
                    }
                } else if (!segments[i].equals(parts[i])) {
                    return false;
                }
            }
            return true;
        }

        private static boolean isParameter(String segment) {
            return segment.startsWith("{") && segment.endsWith("}");
        }

        private static List<String> iterable(JsonNode node) {
            List<String> names = new ArrayList<>();
            node.fieldNames().forEachRemaining(names::add);
            return names;
        }
    }
}
