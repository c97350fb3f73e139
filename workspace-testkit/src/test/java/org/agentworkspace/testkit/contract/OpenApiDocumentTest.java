package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Checks docs/openapi.yaml (as bundled in the jar) for internal consistency and for the authorization table. */
class OpenApiDocumentTest {
    private static final Set<String> HTTP_METHODS = Set.of("get", "put", "post", "delete", "patch");
    private static final Set<String> SCOPES = Set.of("projects:read", "projects:write", "tasks:read", "tasks:write",
            "providers:read", "system:update", "orchestration:read", "orchestration:write");
    private static final Set<String> SCHEMES = Set.of("cookieAuth", "bearerAuth", "apiKeyHeader", "streamTicket");

    private final OpenApiContract contract = OpenApiContract.bundled();
    private final JsonNode doc = contract.document();

    private record Op(String path, String method, JsonNode node) {
        String id() {
            return node.path("operationId").asText();
        }

        String where() {
            return method.toUpperCase() + " " + path + " (" + id() + ")";
        }

        boolean bool(String extension) {
            return node.path(extension).asBoolean(false);
        }

        String scope() {
            return node.path("x-required-scope").asText(null);
        }

        Set<String> schemes() {
            Set<String> schemes = new TreeSet<>();
            node.path("security").forEach(req -> req.fieldNames().forEachRemaining(schemes::add));
            return schemes;
        }
    }

    private List<Op> operations() {
        List<Op> ops = new ArrayList<>();
        doc.path("paths").properties().forEach(p -> p.getValue().properties().forEach(m -> {
            if (HTTP_METHODS.contains(m.getKey())) {
                ops.add(new Op(p.getKey(), m.getKey(), m.getValue()));
            }
        }));
        return ops;
    }

    private void forEachOp(List<String> problems, BiConsumer<Op, List<String>> check) {
        operations().forEach(op -> check.accept(op, problems));
    }

    private static void assertNone(List<String> problems) {
        assertTrue(problems.isEmpty(), problems.size() + " problem(s) in docs/openapi.yaml:\n  " + String.join("\n  ", problems));
    }

    @Test
    void isOpenApi31WithTheReleaseVersion() {
        assertTrue(doc.path("openapi").asText().startsWith("3.1."));
        assertEquals("0.1.0", doc.path("info").path("version").asText());
        assertTrue(operations().size() > 100, "the whole interface is described");
    }

    @Test
    void everyReferenceResolves() {
        List<String> problems = new ArrayList<>();
        walk(doc, "", (node, pointer) -> {
            JsonNode ref = node.get("$ref");
            if (ref != null) {
                String target = ref.asText();
                if (!target.startsWith("#/") || doc.at(target.substring(1)).isMissingNode()) {
                    problems.add(pointer + ": unresolved $ref " + target);
                }
            }
        });
        assertNone(problems);
    }

    @Test
    void everyComponentIsUsed() {
        Set<String> refs = new TreeSet<>();
        walk(doc, "", (node, pointer) -> {
            if (node.has("$ref")) {
                refs.add(node.get("$ref").asText());
            }
        });
        List<String> problems = new ArrayList<>();
        for (String kind : List.of("schemas", "responses", "parameters", "headers")) {
            doc.path("components").path(kind).fieldNames().forEachRemaining(name -> {
                if (!refs.contains("#/components/" + kind + "/" + name)) {
                    problems.add("unused component " + kind + "/" + name);
                }
            });
        }
        assertNone(problems);
    }

    @Test
    void operationIdsAreUniqueAndEveryOperationIsComplete() {
        List<String> problems = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        Set<String> tags = new TreeSet<>();
        doc.path("tags").forEach(t -> tags.add(t.path("name").asText()));
        forEachOp(problems, (op, p) -> {
            if (op.id().isEmpty()) {
                p.add(op.where() + ": no operationId");
            } else if (seen.put(op.id(), op.where()) != null) {
                p.add(op.where() + ": operationId also used by " + seen.get(op.id()));
            }
            if (!op.node().path("summary").isTextual()) {
                p.add(op.where() + ": no summary");
            }
            if (op.node().path("tags").isEmpty()) {
                p.add(op.where() + ": no tags");
            }
            op.node().path("tags").forEach(t -> {
                if (!tags.contains(t.asText())) {
                    p.add(op.where() + ": undeclared tag " + t.asText());
                }
            });
            if (!op.node().path("security").isArray()) {
                p.add(op.where() + ": no security");
            }
            for (String ext : List.of("x-admin-only", "x-session-only")) {
                if (!op.node().path(ext).isBoolean()) {
                    p.add(op.where() + ": " + ext + " must be a boolean");
                }
            }
            if (op.node().has("x-required-scope") && !SCOPES.contains(op.scope())) {
                p.add(op.where() + ": unknown x-required-scope " + op.node().get("x-required-scope"));
            }
            if (op.node().has("x-key-only") && !op.node().get("x-key-only").isBoolean()) {
                p.add(op.where() + ": x-key-only must be a boolean");
            }
            JsonNode responses = op.node().path("responses");
            if (responses.isEmpty()) {
                p.add(op.where() + ": no responses");
            }
            boolean success = false;
            for (String code : names(responses)) {
                success |= code.startsWith("2") || code.equals("101");
            }
            if (!success) {
                p.add(op.where() + ": no success response");
            }
            if (!responses.has("default")) {
                p.add(op.where() + ": no default error response");
            }
            if (!responses.has("500")) {
                p.add(op.where() + ": no 500 response");
            }
        });
        assertNone(problems);
    }

    @Test
    void securityMatchesTheAuthorizationTable() {
        List<String> problems = new ArrayList<>();
        assertEquals(SCHEMES, new TreeSet<>(names(doc.path("components").path("securitySchemes"))));
        Set<String> publicOps = new TreeSet<>();
        forEachOp(problems, (op, p) -> {
            Set<String> schemes = op.schemes();
            if (op.node().path("security").isEmpty()) {
                publicOps.add(op.id());
                if (op.scope() != null || op.bool("x-admin-only") || op.bool("x-session-only")) {
                    p.add(op.where() + ": a public operation needs no scope, admin or session");
                }
                return;
            }
            if (!SCHEMES.containsAll(schemes)) {
                p.add(op.where() + ": undeclared security scheme in " + schemes);
            }
            if (!op.node().path("responses").has("401") || !op.node().path("responses").has("403")) {
                p.add(op.where() + ": a secured operation lists 401 and 403");
            }
            if (op.bool("x-session-only") && (schemes.contains("apiKeyHeader") || op.scope() != null)) {
                p.add(op.where() + ": session-only operations accept no API key header and need no scope");
            }
            if (op.bool("x-key-only") && (schemes.contains("cookieAuth") || schemes.contains("streamTicket"))) {
                p.add(op.where() + ": key-only operations accept no cookie or ticket");
            }
            if (!op.bool("x-session-only") && !op.bool("x-key-only") && !schemes.contains("apiKeyHeader")) {
                p.add(op.where() + ": an operation open to API keys lists apiKeyHeader");
            }
            boolean stream = isStreamOrSocket(op);
            if (schemes.contains("streamTicket") != stream) {
                p.add(op.where() + ": streamTicket belongs exactly to SSE and WebSocket operations");
            }
        });
        assertEquals(Set.of("getHealth", "getOpenApiDocument", "getAuthStatus", "register", "login"), publicOps,
                "public operations");
        assertNone(problems);
    }

    @Test
    void scopesAdminAndSessionFollowTheRouteFamilies() {
        List<String> problems = new ArrayList<>();
        forEachOp(problems, (op, p) -> {
            String path = op.path();
            boolean read = op.method().equals("get");
            if (path.startsWith("/api/orchestration/")) {
                expect(p, op, op.node().path("deprecated").asBoolean(), "retired family is deprecated");
                // served over automation runs: the automation runs' scopes (docs/workflows.md)
                String scope = read || op.id().equals("previewWorkflow") ? "tasks:read" : "tasks:write";
                expect(p, op, scope.equals(op.scope()), "needs " + scope);
            } else if (path.startsWith("/api/production-agent-loop/")) {
                expect(p, op, op.bool("x-admin-only"), "is admin-only");
                expect(p, op, (read ? "orchestration:read" : "orchestration:write").equals(op.scope()),
                        "needs orchestration:" + (read ? "read" : "write"));
            } else if (path.startsWith("/api/network/") || path.equals("/api/browse-filesystem")
                    || path.startsWith("/api/users") || path.equals("/shell")) {
                expect(p, op, op.bool("x-admin-only") && op.bool("x-session-only"), "is admin- and session-only");
            } else if (path.equals("/api/system/update")) {
                expect(p, op, op.bool("x-admin-only") && "system:update".equals(op.scope()),
                        "is admin-only with system:update");
            } else if (path.equals("/api/system/restart")) {
                // control plane: no key reaches it (security.md SC-4: system:update is for the update only)
                expect(p, op, op.bool("x-admin-only") && op.bool("x-session-only"), "is admin- and session-only");
            } else if (path.startsWith("/api/settings/api-keys")) {
                expect(p, op, op.bool("x-session-only") && !op.bool("x-admin-only"), "is session-only");
            } else if (path.equals("/api/agent")) {
                expect(p, op, op.bool("x-key-only") && "tasks:write".equals(op.scope()), "is key-only with tasks:write");
            } else if (path.startsWith("/api/automation/") || path.startsWith("/api/tasks")) {
                boolean readish = read;
                expect(p, op, (readish ? "tasks:read" : "tasks:write").equals(op.scope()),
                        "needs tasks:" + (readish ? "read" : "write"));
            } else if (path.startsWith("/api/projects") || path.startsWith("/api/sessions")
                    || path.startsWith("/api/search") || path.startsWith("/api/git/")) {
                expect(p, op, (read ? "projects:read" : "projects:write").equals(op.scope()),
                        "needs projects:" + (read ? "read" : "write"));
            } else if (path.startsWith("/api/providers/")) {
                if (read && op.scope() != null) {
                    expect(p, op, "providers:read".equals(op.scope()), "provider reads need providers:read");
                } else {
                    expect(p, op, op.bool("x-session-only") || read, "provider writes are session-only");
                }
            }
            if (!path.startsWith("/api/production-agent-loop/")
                    && op.scope() != null && op.scope().startsWith("orchestration:")) {
                p.add(op.where() + ": orchestration scopes belong to the loop");
            }
        });
        assertNone(problems);
    }

    @Test
    void errorResponsesUseTheEnvelopeAnd429CarriesRetryAfter() {
        List<String> problems = new ArrayList<>();
        forEachOp(problems, (op, p) -> op.node().path("responses").properties().forEach(e -> {
            String code = e.getKey();
            JsonNode response = resolve(e.getValue());
            if (code.startsWith("4") || code.startsWith("5") || code.equals("default")) {
                String schemaRef = response.path("content").path("application/json").path("schema").path("$ref").asText();
                if (!schemaRef.equals("#/components/schemas/ErrorResponse")) {
                    p.add(op.where() + " " + code + ": error response is not the ErrorResponse envelope");
                }
            }
            if (code.equals("429") && !response.path("headers").has("Retry-After")) {
                p.add(op.where() + ": 429 without Retry-After");
            }
            if (op.node().has("requestBody") && op.node().path("requestBody").path("content").has("application/json")
                    && !op.node().path("responses").has("415")) {
                p.add(op.where() + ": a JSON body can be the wrong media type (415)");
            }
        }));
        assertNone(problems.stream().distinct().toList());
    }

    @Test
    void pathParametersAreDeclared() {
        List<String> problems = new ArrayList<>();
        Pattern parameter = Pattern.compile("\\{([^}]+)}");
        doc.path("paths").properties().forEach(p -> {
            Set<String> inTemplate = new TreeSet<>();
            Matcher m = parameter.matcher(p.getKey());
            while (m.find()) {
                inTemplate.add(m.group(1));
            }
            Set<String> pathLevel = pathParameters(p.getValue().path("parameters"));
            p.getValue().properties().forEach(method -> {
                if (!HTTP_METHODS.contains(method.getKey())) {
                    return;
                }
                Set<String> declared = new TreeSet<>(pathLevel);
                declared.addAll(pathParameters(method.getValue().path("parameters")));
                if (!declared.equals(inTemplate)) {
                    problems.add(method.getKey().toUpperCase() + " " + p.getKey() + ": path parameters " + declared
                            + " do not match the template " + inTemplate);
                }
            });
        });
        assertNone(problems);
    }

    @Test
    void streamsDeclareTheirEvents() {
        List<String> problems = new ArrayList<>();
        forEachOp(problems, (op, p) -> op.node().path("responses").properties().forEach(e -> {
            JsonNode response = resolve(e.getValue());
            boolean sse = response.path("content").has("text/event-stream");
            if (sse != response.has("x-sse-events")) {
                p.add(op.where() + " " + e.getKey() + ": text/event-stream and x-sse-events go together");
            }
        }));
        forEachOp(problems, (op, p) -> {
            if (op.node().path("responses").has("101") != op.node().has("x-websocket")) {
                p.add(op.where() + ": a 101 response and x-websocket go together");
            }
        });
        assertNone(problems);
    }

    @Test
    void errorCodeTableHoldsTheFoundationCodes() {
        Map<String, Integer> expected = new LinkedHashMap<>();
        for (String c : List.of("VALIDATION_FAILED", "INVALID_JSON", "UNKNOWN_SCOPE")) {
            expected.put(c, 400);
        }
        for (String c : List.of("AUTH_REQUIRED", "INVALID_CREDENTIALS", "INVALID_TOKEN", "INVALID_API_KEY",
                "API_KEY_REQUIRED", "INVALID_STREAM_TICKET", "QUERY_CREDENTIALS_DISABLED")) {
            expected.put(c, 401);
        }
        for (String c : List.of("SETUP_COMPLETE", "INSUFFICIENT_SCOPE", "ADMIN_REQUIRED", "SESSION_REQUIRED",
                "ORIGIN_REJECTED", "HOST_REJECTED")) {
            expected.put(c, 403);
        }
        for (String c : List.of("ROUTE_NOT_FOUND", "NOT_FOUND", "USER_NOT_FOUND", "API_KEY_NOT_FOUND")) {
            expected.put(c, 404);
        }
        expected.put("METHOD_NOT_ALLOWED", 405);
        expected.put("CONFLICT", 409);
        expected.put("USERNAME_TAKEN", 409);
        expected.put("PAYLOAD_TOO_LARGE", 413);
        expected.put("UNSUPPORTED_MEDIA_TYPE", 415);
        expected.put("HEADERS_TOO_LARGE", 431);
        expected.put("RATE_LIMITED", 429);
        expected.put("INTERNAL_ERROR", 500);
        expected.put("STORE_UNAVAILABLE", 503);
        List<String> problems = new ArrayList<>();
        Map<String, Integer> table = contract.errorCodes();
        expected.forEach((code, status) -> {
            if (!status.equals(table.get(code))) {
                problems.add(code + " should be " + status + " but the table says " + table.get(code));
            }
        });
        String description = doc.at("/components/schemas/ErrorResponse/description").asText();
        table.keySet().forEach(code -> {
            if (!description.contains("`" + code + "`")) {
                problems.add(code + " is missing from the ErrorResponse description table");
            }
        });
        assertNone(problems);
    }

    @Test
    void everySchemaIsValidJsonSchema202012AndCompiles() {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
        Schema meta = registry.getSchema(SchemaLocation.of(SpecificationVersion.DRAFT_2020_12.getDialectId()));
        ObjectMapper mapper = new ObjectMapper();
        List<String> problems = new ArrayList<>();
        walk(doc, "", (node, pointer) -> {
            if (node.has("nullable")) {
                problems.add(pointer + ": 'nullable' is OpenAPI 3.0; use type [x, 'null']");
            }
        });
        doc.path("components").path("schemas").properties().forEach(e -> {
            try {
                meta.validate(mapper.writeValueAsString(e.getValue()), InputFormat.JSON)
                        .forEach(err -> problems.add("schemas/" + e.getKey() + err.getInstanceLocation() + ": "
                                + err.getMessage()));
                // compiling against the document resolves every reference inside the schema
                contract.validateJson("/components/schemas/" + e.getKey(), "null");
            } catch (Exception ex) {
                problems.add("schemas/" + e.getKey() + ": " + ex);
            }
        });
        assertNone(problems);
    }

    private boolean isStreamOrSocket(Op op) {
        if (op.node().path("responses").has("101")) {
            return true;
        }
        boolean stream = false;
        for (JsonNode response : op.node().path("responses")) {
            stream |= resolve(response).path("content").has("text/event-stream");
        }
        return stream && !op.bool("x-key-only");
    }

    private static void expect(List<String> problems, Op op, boolean condition, String rule) {
        if (!condition) {
            problems.add(op.where() + ": " + rule + " (scope " + op.scope() + ", admin " + op.bool("x-admin-only")
                    + ", session " + op.bool("x-session-only") + ")");
        }
    }

    private JsonNode resolve(JsonNode node) {
        JsonNode current = node;
        while (current.has("$ref")) {
            current = doc.at(current.get("$ref").asText().substring(1));
        }
        return current;
    }

    private Set<String> pathParameters(JsonNode parameters) {
        Set<String> names = new TreeSet<>();
        parameters.forEach(p -> {
            JsonNode resolved = resolve(p);
            if ("path".equals(resolved.path("in").asText())) {
                names.add(resolved.path("name").asText());
            }
        });
        return names;
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static void walk(JsonNode node, String pointer, BiConsumer<JsonNode, String> visitor) {
        if (node.isObject()) {
            visitor.accept(node, pointer);
            node.properties().forEach(e -> walk(e.getValue(), pointer + "/" + OpenApiContract.escape(e.getKey()), visitor));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(node.get(i), pointer + "/" + i, visitor);
            }
        }
    }
}
