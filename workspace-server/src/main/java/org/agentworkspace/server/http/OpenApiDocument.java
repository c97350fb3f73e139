package org.agentworkspace.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.agentworkspace.core.json.JsonMappers;

/**
 * The OpenAPI 3.1 document (docs/openapi.yaml, bundled at build time), served as JSON at {@code /api/openapi.json}
 * and used at start-up to check that every route the server declares is documented with the same access rule.
 *
 * <p>Parsing the YAML costs a cold JVM 100-200 ms of CPU; the server therefore keeps a JSON copy of the document it
 * bundles in a private cache folder ({@link #load(Path)}, {@link #saveCopy(Path)}), named by the CRC-32 of the YAML,
 * and later starts parse that instead (about 20 ms). A copy that is missing, unreadable or not valid JSON is ignored
 * and the YAML parsed as before.
 */
public final class OpenApiDocument {
    private static final String RESOURCE = "/org/agentworkspace/server/openapi/openapi.yaml";
    private static final System.Logger LOG = System.getLogger(OpenApiDocument.class.getName());

    private final JsonNode root;
    private final byte[] json;
    private final String copyName;
    private final boolean fromCopy;

    private OpenApiDocument(JsonNode root, byte[] json, String copyName, boolean fromCopy) {
        this.root = root;
        this.json = json;
        this.copyName = copyName;
        this.fromCopy = fromCopy;
    }

    /** Parses the bundled YAML. */
    public static OpenApiDocument load() {
        byte[] yaml = bundled();
        return fromYaml(yaml, copyName(yaml));
    }

    /**
     * The bundled document, from its JSON copy in {@code cacheDir} when one for this exact YAML is there (the folder
     * is only read, never created: see {@link #saveCopy}).
     */
    public static OpenApiDocument load(Path cacheDir) {
        byte[] yaml = bundled();
        String name = copyName(yaml);
        Path copy = cacheDir.resolve(name);
        if (Files.isRegularFile(copy)) {
            try {
                byte[] json = Files.readAllBytes(copy);
                JsonNode root = JsonMappers.shared().readTree(json);
                if (root != null && root.isObject() && root.has("paths")) {
                    return new OpenApiDocument(root, json, name, true);
                }
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "ignoring the OpenAPI copy {0}: {1}", copy, e.getMessage());
            }
        }
        return fromYaml(yaml, name);
    }

    /**
     * Writes the JSON copy {@link #load(Path)} reads into {@code cacheDir} (its parent must exist; created with mode
     * 0700 when missing; written to a temporary file and renamed), unless this document was read from it; removes copies of other
     * versions of the document. A folder that cannot be written only means the next start parses the YAML again.
     */
    public void saveCopy(Path cacheDir) {
        if (fromCopy) {
            return;
        }
        try {
            if (!Files.isDirectory(cacheDir)) {
                if (Files.getFileAttributeView(cacheDir.getParent(), PosixFileAttributeView.class) != null) {
                    Files.createDirectory(cacheDir, PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rwx------")));
                } else {
                    Files.createDirectory(cacheDir);
                }
            }
            Path tmp = Files.createTempFile(cacheDir, "openapi-", ".part");
            try {
                Files.write(tmp, json);
                Files.move(tmp, cacheDir.resolve(copyName), StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
            try (DirectoryStream<Path> old = Files.newDirectoryStream(cacheDir, "openapi-*.json")) {
                for (Path p : old) {
                    if (!p.getFileName().toString().equals(copyName)) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot keep a JSON copy of the OpenAPI document in {0}: {1}",
                    cacheDir, e.getMessage());
        }
    }

    private static byte[] bundled() {
        try (InputStream in = OpenApiDocument.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the OpenAPI document is missing from the build");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("the OpenAPI document cannot be read", e);
        }
    }

    private static String copyName(byte[] yaml) {
        CRC32 crc = new CRC32();
        crc.update(yaml);
        return "openapi-" + HexFormat.of().toHexDigits((int) crc.getValue()) + "-" + yaml.length + ".json";
    }

    private static OpenApiDocument fromYaml(byte[] yaml, String name) {
        try {
            JsonNode root = JsonMappers.over(new YAMLFactory()).readTree(yaml);
            return new OpenApiDocument(root, JsonMappers.shared().writeValueAsBytes(root), name, false);
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

    /**
     * The top-level fields the document allows in the JSON body of each operation, by "METHOD path": the
     * {@code properties} of its {@code application/json} request schema (after {@code $ref}s, with those of
     * {@code allOf}/{@code anyOf}/{@code oneOf} branches). An operation without a documented JSON body allows none.
     * The {@link Guard} refuses any other field with a 400 naming it: the document is the one list of what a body
     * may hold.
     */
    public Map<String, java.util.Set<String>> bodyFields() {
        Map<String, java.util.Set<String>> out = new java.util.HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.path("paths").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            for (Iterator<Map.Entry<String, JsonNode>> m = e.getValue().fields(); m.hasNext(); ) {
                Map.Entry<String, JsonNode> op = m.next();
                if (!List.of("get", "put", "post", "delete", "patch").contains(op.getKey())) {
                    continue;
                }
                java.util.Set<String> fields = new java.util.TreeSet<>();
                JsonNode schema = resolve(resolve(op.getValue().path("requestBody")).path("content")
                        .path("application/json").path("schema"));
                collectProperties(schema, fields, 0);
                out.put(op.getKey().toUpperCase(Locale.ROOT) + " " + e.getKey(), java.util.Set.copyOf(fields));
            }
        }
        return out;
    }

    private void collectProperties(JsonNode schema, java.util.Set<String> into, int depth) {
        if (depth > 8 || !schema.isObject()) {
            return;
        }
        schema.path("properties").fieldNames().forEachRemaining(into::add);
        for (String k : List.of("allOf", "anyOf", "oneOf")) {
            for (JsonNode branch : schema.path(k)) {
                collectProperties(resolve(branch), into, depth + 1);
            }
        }
    }

    /** Follows local {@code $ref}s ({@code #/components/...}). */
    private JsonNode resolve(JsonNode node) {
        for (int i = 0; i < 8 && node.has("$ref"); i++) {
            String ref = node.get("$ref").asText();
            node = ref.startsWith("#") ? root.at(ref.substring(1)) : com.fasterxml.jackson.databind.node
                    .MissingNode.getInstance();
        }
        return node;
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
