package org.agentworkspace.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/**
 * The OpenAPI 3.1 document (docs/openapi.yaml, bundled at build time), served as JSON at {@code /api/openapi.json}
 * and used at start-up to check that every route the server declares is documented with the same access rule.
 */
public final class OpenApiDocument {
    private final JsonNode root;
    private final byte[] json;

    private OpenApiDocument(JsonNode root, byte[] json) {
        this.root = root;
        this.json = json;
    }

    public static OpenApiDocument load() {
        try (InputStream in = OpenApiDocument.class.getResourceAsStream("/org/agentworkspace/server/openapi/openapi.yaml")) {
            if (in == null) {
                throw new IllegalStateException("the OpenAPI document is missing from the build");
            }
            JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(in);
            return new OpenApiDocument(root, new ObjectMapper().writeValueAsBytes(root));
        } catch (IOException e) {
            throw new IllegalStateException("the OpenAPI document cannot be read", e);
        }
    }

    public byte[] json() {
        return json.clone();
    }

    public JsonNode root() {
        return root;
    }

    /**
     * Differences between the route table and the document: a declared route missing from the document, or
     * documented with another scope, administrator, session-only, key-only or public rule.
     */
    public List<String> mismatches(RouteTable table) {
        List<String> out = new ArrayList<>();
        JsonNode paths = root.path("paths");
        for (RouteTable.Route r : table.routes()) {
            JsonNode op = paths.path(r.path()).path(r.method().toLowerCase(Locale.ROOT));
            String where = r.method() + " " + r.path();
            if (op.isMissingNode()) {
                out.add(where + ": not in the OpenAPI document");
                continue;
            }
            Access a = r.access();
            boolean documentedPublic = op.has("security") && op.get("security").isArray() && op.get("security").isEmpty();
            check(out, where, "public", a.isPublic(), documentedPublic);
            String scope = op.path("x-required-scope").asText(null);
            String declared = a.scope() == null ? null : a.scope().id();
            if (!java.util.Objects.equals(scope, declared)) {
                out.add(where + ": x-required-scope " + scope + " but the server declares " + declared);
            }
            check(out, where, "x-admin-only", a.adminOnly(), op.path("x-admin-only").asBoolean(false));
            check(out, where, "x-session-only", a.sessionOnly(), op.path("x-session-only").asBoolean(false));
            check(out, where, "x-key-only", a.keyOnly(), op.path("x-key-only").asBoolean(false));
        }
        return out;
    }

    private static void check(List<String> out, String where, String what, boolean declared, boolean documented) {
        if (declared != documented) {
            out.add(where + ": " + what + " documented " + documented + " but declared " + declared);
        }
    }

    /** All documented operations as "METHOD path". */
    public List<String> operations() {
        List<String> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.path("paths").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            for (Iterator<String> m = e.getValue().fieldNames(); m.hasNext(); ) {
                String method = m.next();
                if (List.of("get", "put", "post", "delete", "patch", "head", "options").contains(method)) {
                    out.add(method.toUpperCase(Locale.ROOT) + " " + e.getKey());
                }
            }
        }
        return out;
    }
}
