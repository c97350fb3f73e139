package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The response validator, against a small hand-made document and against the real one. */
class OpenApiValidatorTest {
    private static final String DOC = """
            openapi: 3.1.0
            info: {title: sample, version: '1'}
            paths:
              /things/{id}:
                parameters:
                  - {name: id, in: path, required: true, schema: {type: string}}
                get:
                  operationId: getThing
                  responses:
                    '200':
                      description: ok
                      headers:
                        X-Count: {required: true, schema: {type: integer, minimum: 0}}
                      content:
                        application/json:
                          schema: {$ref: '#/components/schemas/Thing'}
                    '404': {$ref: '#/components/responses/Error'}
                    default: {$ref: '#/components/responses/Error'}
              /things/special:
                get:
                  operationId: getSpecial
                  responses:
                    '200':
                      description: ok
                      headers:
                        Cache-Control: {required: true, schema: {type: string, const: no-store}}
                      content:
                        application/json:
                          schema: {type: object, required: [special], properties: {special: {const: true}}}
              /events:
                get:
                  operationId: streamEvents
                  responses:
                    '200':
                      description: stream
                      content:
                        text/event-stream:
                          schema: {type: string}
                      x-sse-events:
                        log: {type: object, required: [text], properties: {text: {type: string}}}
                        done: {$ref: '#/components/schemas/Thing'}
              /socket:
                get:
                  operationId: openSocket
                  responses:
                    '101': {description: switching}
            components:
              responses:
                Error:
                  description: error
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/ErrorResponse'}
              schemas:
                Thing:
                  type: object
                  required: [id, when, kind]
                  properties:
                    id: {type: integer}
                    when: {type: string, format: date-time}
                    tag: {type: [string, 'null']}
                    kind: {$ref: '#/components/schemas/Kind'}
                Kind:
                  oneOf:
                    - {type: object, required: [type], properties: {type: {const: a}, n: {type: integer}}}
                    - {type: object, required: [type], properties: {type: {const: b}}}
                ErrorResponse:
                  type: object
                  required: [success, error]
                  properties:
                    success: {const: false}
                    error:
                      type: object
                      required: [code, message]
                      properties:
                        code: {type: string}
                        message: {type: string}
                  x-error-codes:
                    NOPE: 404
                    BAD: 400
            """;
    private static final Map<String, List<String>> JSON = Map.of("Content-Type", List.of("application/json; charset=utf-8"));
    private static final String THING = "{\"id\": 7, \"when\": \"2026-01-02T03:04:05Z\", \"tag\": null, \"kind\": {\"type\": \"a\", \"n\": 1}}";

    private final OpenApiContract contract = OpenApiContract.fromYaml(DOC);

    private static Map<String, List<String>> json(String header, String value) {
        return Map.of("Content-Type", List.of("application/json"), header, List.of(value));
    }

    @Test
    void findsOperationsPreferringLiteralSegmentsAndIgnoringTheQuery() {
        assertEquals("getSpecial", contract.findOperation("GET", "/things/special").orElseThrow().operationId());
        assertEquals("getThing", contract.findOperation("get", "/things/42?x=1").orElseThrow().operationId());
        assertTrue(contract.findOperation("POST", "/things/42").isEmpty());
        assertTrue(contract.findOperation("GET", "/things/").isEmpty(), "an empty segment is not a parameter");
        assertTrue(contract.findOperation("GET", "/things/1/more").isEmpty());
    }

    @Test
    void conformingResponseHasNoViolations() {
        assertEquals(List.of(), contract.validateResponse("GET", "/things/7", 200, json("X-Count", "3"), THING));
        assertEquals(List.of(), contract.validateResponse("GET", "/things/special", 200,
                json("cache-control", "no-store"), "{\"special\": true}"));
    }

    @Test
    void schemaViolationsNameTheirLocation() {
        String bad = "{\"id\": \"seven\", \"when\": \"yesterday\", \"tag\": 5, \"kind\": {\"type\": \"c\"}}";
        List<String> violations = contract.validateResponse("GET", "/things/7", 200, json("X-Count", "1"), bad);

        assertTrue(violations.stream().anyMatch(v -> v.contains("/id")), violations.toString());
        assertTrue(violations.stream().anyMatch(v -> v.contains("/when")), violations.toString());
        assertTrue(violations.stream().anyMatch(v -> v.contains("/tag")), violations.toString());
        assertTrue(violations.stream().anyMatch(v -> v.contains("/kind")), violations.toString());
        assertTrue(violations.getFirst().startsWith("GET /things/7 -> 200 (getThing)"), violations.getFirst());
    }

    @Test
    void missingRequiredPropertyIsReported() {
        List<String> violations = contract.validateResponse("GET", "/things/7", 200, json("X-Count", "1"),
                "{\"id\": 1, \"kind\": {\"type\": \"b\"}}");
        assertEquals(1, violations.size(), violations.toString());
        assertTrue(violations.getFirst().contains("when"), violations.toString());
    }

    @Test
    void undocumentedStatusIsAViolationButErrorsFallBackToDefault() {
        assertFalse(contract.validateResponse("GET", "/things/7", 201, json("X-Count", "1"), THING).isEmpty());
        assertFalse(contract.validateResponse("GET", "/things/special", 404, JSON,
                "{\"success\": false, \"error\": {\"code\": \"NOPE\", \"message\": \"x\"}}").isEmpty(),
                "no 404 and no default documented");
        assertEquals(List.of(), contract.validateResponse("GET", "/things/7", 503, JSON,
                "{\"success\": false, \"error\": {\"code\": \"DOWN\", \"message\": \"x\"}}"));
        assertFalse(contract.validateResponse("GET", "/things/7", 503, JSON, "{\"oops\": true}").isEmpty());
    }

    @Test
    void contentTypeMustBeDocumentedAndPresent() {
        List<String> html = contract.validateResponse("GET", "/things/7", 200,
                Map.of("Content-Type", List.of("text/html"), "X-Count", List.of("1")), THING);
        assertTrue(html.getFirst().contains("text/html is not documented"), html.toString());
        List<String> none = contract.validateResponse("GET", "/things/7", 200, Map.of("X-Count", List.of("1")), THING);
        assertTrue(none.getFirst().contains("no Content-Type"), none.toString());
    }

    @Test
    void bodyMustBeJson() {
        List<String> violations = contract.validateResponse("GET", "/things/7", 200, json("X-Count", "1"), "{\"id\": ");
        assertTrue(violations.getFirst().contains("not valid JSON"), violations.toString());
        List<String> trailing = contract.validateResponse("GET", "/things/special", 200,
                json("Cache-Control", "no-store"), "{\"special\": true} {}");
        assertTrue(trailing.getFirst().contains("not valid JSON"), trailing.toString());
        List<String> empty = contract.validateResponse("GET", "/things/7", 200, json("X-Count", "1"), "");
        assertTrue(empty.getFirst().contains("empty body"), empty.toString());
    }

    @Test
    void documentedHeadersAreChecked() {
        List<String> missing = contract.validateResponse("GET", "/things/7", 200, JSON, THING);
        assertTrue(missing.getFirst().contains("required header X-Count is missing"), missing.toString());
        List<String> notInteger = contract.validateResponse("GET", "/things/7", 200, json("X-Count", "many"), THING);
        assertTrue(notInteger.getFirst().contains("not an integer"), notInteger.toString());
        List<String> negative = contract.validateResponse("GET", "/things/7", 200, json("X-Count", "-1"), THING);
        assertTrue(negative.getFirst().contains("below its minimum"), negative.toString());
        List<String> wrongConst = contract.validateResponse("GET", "/things/special", 200,
                json("Cache-Control", "max-age=60"), "{\"special\": true}");
        assertTrue(wrongConst.getFirst().contains("expected no-store"), wrongConst.toString());
        assertEquals(List.of(), contract.validateResponse("GET", "/things/special", 200,
                json("Cache-Control", "private, no-store"), "{\"special\": true}"));
    }

    @Test
    void unknownRoutesMayOnlyAnswer404WithTheEnvelope() {
        String envelope = "{\"success\": false, \"error\": {\"code\": \"ROUTE_NOT_FOUND\", \"message\": \"x\"}}";
        assertEquals(List.of(), contract.validateResponse("GET", "/nowhere", 404, JSON, envelope));
        assertFalse(contract.validateResponse("GET", "/nowhere", 200, JSON, "{}").isEmpty());
        assertFalse(contract.validateResponse("GET", "/nowhere", 404, Map.of("Content-Type", List.of("text/html")),
                "<h1>not found</h1>").isEmpty());
    }

    @Test
    void undocumentedMethodsMayOnlyAnswer405Or404() {
        String envelope = "{\"success\": false, \"error\": {\"code\": \"METHOD_NOT_ALLOWED\", \"message\": \"x\"}}";
        assertEquals(List.of(), contract.validateResponse("DELETE", "/things/7", 405, JSON, envelope));
        assertFalse(contract.validateResponse("DELETE", "/things/7", 200, JSON, THING).isEmpty());
    }

    @Test
    void errorCodeMustMatchItsStatus() {
        List<String> violations = contract.validateResponse("GET", "/things/7", 404, JSON,
                "{\"success\": false, \"error\": {\"code\": \"BAD\", \"message\": \"x\"}}");
        assertEquals(1, violations.size(), violations.toString());
        assertTrue(violations.getFirst().contains("belongs to status 400"), violations.toString());
    }

    @Test
    void streamsAndUpgradesAreNotParsedAsJson() {
        assertEquals(List.of(), contract.validateResponse("GET", "/events", 200,
                Map.of("Content-Type", List.of("text/event-stream")), "event: log\ndata: {}\n\n"));
        assertEquals(List.of(), contract.validateResponse("GET", "/socket", 101, Map.of(), ""));
    }

    @Test
    void eventsAreCheckedAgainstTheirDocumentedSchemas() {
        assertEquals(List.of(), contract.validateEvent("GET", "/events?afterSeq=3", 200, "log", "{\"text\": \"hi\"}"));
        assertEquals(List.of(), contract.validateEvent("GET", "/events", 200, "done", THING));
        assertTrue(contract.validateEvent("GET", "/events", 200, "log", "{\"text\": 1}").getFirst().contains("/text"));
        assertTrue(contract.validateEvent("GET", "/events", 200, "log", "text").getFirst().contains("not valid JSON"));
        assertTrue(contract.validateEvent("GET", "/events", 200, "progress", "{}").getFirst()
                .contains("event is not documented"));
        assertFalse(contract.validateEvent("GET", "/events", 201, "log", "{\"text\": \"hi\"}").isEmpty());
        assertFalse(contract.validateEvent("GET", "/nowhere", 200, "log", "{\"text\": \"hi\"}").isEmpty());
    }

    @Test
    void rejectsDocumentsThatAreNotOpenApi31() {
        assertThrows(IllegalArgumentException.class, () -> OpenApiContract.fromYaml("openapi: 3.0.3\npaths: {}\n"));
        assertThrows(IllegalArgumentException.class, () -> OpenApiContract.fromYaml("openapi: [unclosed"));
    }

    @Test
    void realDocumentAcceptsHealthAndRejectsItsViolations() {
        OpenApiContract real = OpenApiContract.bundled();
        String good = "{\"status\":\"ok\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"version\":\"0.1.0\",\"installMode\":\"docker\"}";
        assertEquals(List.of(), real.validateResponse("GET", "/health", 200, JSON, good));
        String bad = "{\"status\":\"ok\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"version\":\"dev\",\"installMode\":\"ftp\"}";
        assertEquals(2, real.validateResponse("GET", "/health", 200, JSON, bad).size());
    }

    @Test
    void realDocumentDistinguishesMaskedAndFullKeys() {
        OpenApiContract real = OpenApiContract.bundled();
        String masked = "[{\"id\":1,\"key_name\":\"ci\",\"api_key\":\"px_\u2026beef\",\"created_at\":\"2026-01-01T00:00:00Z\","
                + "\"last_used\":null,\"is_active\":true,\"scopes\":[\"projects:read\"],\"legacy\":false}]";
        assertEquals(List.of(), real.validateResponse("GET", "/api/settings/api-keys", 200, JSON, masked));
        String leaked = masked.replace("px_\u2026beef", "px_0123456789abcdef0123456789abbeef");
        assertFalse(real.validateResponse("GET", "/api/settings/api-keys", 200, JSON, leaked).isEmpty(),
                "a full key in the listing is a violation");
        String hash = masked.replace("\"legacy\":false", "\"legacy\":false,\"key_hash\":\"abc\"");
        assertFalse(real.validateResponse("GET", "/api/settings/api-keys", 200, JSON, hash).isEmpty(),
                "extra fields on keys are a violation (nothing secret may leak)");
    }

    @Test
    void realDocumentChecksUndocumentedRoutesAndErrorCodes() {
        OpenApiContract real = OpenApiContract.bundled();
        String notFound = "{\"success\":false,\"error\":{\"code\":\"ROUTE_NOT_FOUND\",\"message\":\"no route\"}}";
        assertEquals(List.of(), real.validateResponse("GET", "/api/nope", 404, JSON, notFound));
        String wrongStatus = "{\"success\":false,\"error\":{\"code\":\"SETUP_COMPLETE\",\"message\":\"x\"}}";
        assertFalse(real.validateResponse("POST", "/api/auth/register", 409, JSON, wrongStatus).isEmpty());
        assertEquals("projects:read", real.findOperation("GET", "/api/git/status?project=x").orElseThrow()
                .requiredScope().orElseThrow());
        assertTrue(real.findOperation("POST", "/api/auth/login").orElseThrow().isPublic());
        assertTrue(real.findOperation("GET", "/api/network/endpoints").orElseThrow().adminOnly());
        assertEquals("addGlobalMcpServer", real.findOperation("POST", "/api/providers/mcp/servers/global")
                .orElseThrow().operationId());
    }
}
