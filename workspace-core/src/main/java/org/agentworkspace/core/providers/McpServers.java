package org.agentworkspace.core.providers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.ProviderDescriptor;
import org.agentworkspace.api.provider.ProviderDescriptor.McpShape;
import org.agentworkspace.core.secrets.SecretBox;
import org.agentworkspace.core.json.JsonMappers;

/**
 * MCP server entries in each CLI's own file and shape, the ones the CLIs' {@code mcp list} commands read:
 *
 * <table>
 * <caption>files and shapes</caption>
 * <tr><th>provider</th><th>user scope</th><th>local scope (project P)</th><th>entry</th></tr>
 * <tr><td>claude</td><td>{@code ~/.claude.json} {@code mcpServers}</td>
 *     <td>{@code ~/.claude.json} {@code projects[P].mcpServers}</td>
 *     <td>{@code {type:"stdio", command, args, env}}</td></tr>
 * <tr><td>codex</td><td>{@code ~/.codex/config.toml}</td><td>{@code P/.codex/config.toml}</td>
 *     <td>{@code [mcp_servers.<name>]} command, args, {@code [mcp_servers.<name>.env]}</td></tr>
 * <tr><td>cursor</td><td>{@code ~/.cursor/mcp.json}</td><td>{@code P/.cursor/mcp.json}</td>
 *     <td>{@code mcpServers: {command, args, env}}</td></tr>
 * <tr><td>gemini</td><td>{@code <dataDir>/providers/gemini/.gemini/settings.json}</td>
 *     <td>{@code P/.gemini/settings.json}</td><td>{@code mcpServers: {command, args, env}}</td></tr>
 * <tr><td>qwen</td><td>{@code ~/.qwen/settings.json}</td><td>{@code P/.qwen/settings.json}</td>
 *     <td>{@code mcpServers: {command, args, env}}</td></tr>
 * <tr><td>opencode</td><td>{@code $XDG_CONFIG_HOME/opencode/opencode.json}</td><td>{@code P/opencode.json}</td>
 *     <td>{@code mcp: {type:"local", command:[program, ...args], environment, enabled:true}}</td></tr>
 * </table>
 *
 * Everything else in those files is preserved: JSON files are parsed, only the one entry is changed, and the tree is
 * written back (key order kept; comments in JSON-with-comments files are not kept); codex's TOML is edited as text
 * ({@link TomlMcpTables}) and verified by parsing it again. grok reads MCP servers only from a project file of its
 * own and is not supported (400 {@code UNSUPPORTED_CAPABILITY}).
 */
public final class McpServers {
    private static final ObjectMapper PLAIN = JsonMappers.shared();
    private static final DefaultPrettyPrinter PRETTY = new DefaultPrettyPrinter()
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n"))
            .withSeparators(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                    .withObjectEmptySeparator("")
                    .withArrayEmptySeparator(""));

    private final ProviderPaths paths;
    private final ProviderFiles files;
    private final Function<String, Path> projects;
    private final ProviderCatalog catalog;

    /**
     * @param projects the folder of a registered project by name (404 {@code PROJECT_NOT_FOUND} otherwise)
     */
    McpServers(ProviderPaths paths, ProviderFiles files, Function<String, Path> projects, ProviderCatalog catalog) {
        this.paths = paths;
        this.files = files;
        this.projects = projects;
        this.catalog = catalog;
    }

    /** The outcome of the global add for one provider. */
    public record GlobalResult(String provider, boolean success, String errorCode, String errorMessage) {
    }

    /** Where one provider keeps one scope's entries. */
    private record Target(String provider, Path file, McpShape shape, List<String> container, ConfigFormat format) {
    }

    /** The id of a loaded provider (MCP-capable or not), or 404 {@code PROVIDER_NOT_FOUND}. */
    public String provider(String id) {
        return catalog.require(id).id();
    }

    /** The providers whose MCP entries this service edits, in load order. */
    public List<String> capableProviders() {
        return catalog.all().stream().filter(ProviderFacts::mcp).map(ProviderFacts::id).toList();
    }

    /**
     * The entries of a provider: those of {@code scope} when given, else the user entries followed by the local
     * ones of {@code project} (when a project is given).
     */
    public List<McpServer> list(String provider, McpScope scope, String project) {
        facts(provider);
        List<McpServer> out = new ArrayList<>();
        if (scope == null || scope == McpScope.USER) {
            out.addAll(read(provider, McpScope.USER, null));
        }
        if (scope == McpScope.LOCAL || (scope == null && project != null)) {
            out.addAll(read(provider, McpScope.LOCAL, project));
        }
        return out;
    }

    /** Adds or replaces the entry named {@code spec.name()} in the scope's file. */
    public void upsert(String provider, McpServerSpec spec, McpScope scope, String project) {
        facts(provider);
        Target t = target(provider, scope, project);
        files.locked(t.file(), () -> {
            if (t.shape() == McpShape.CODEX) {
                upsertToml(t, spec);
            } else {
                ObjectNode root = readJson(t);
                ObjectNode container = container(root, t.container(), true);
                container.set(spec.name(), entry(t.shape(), spec));
                files.write(t.file(), write(root), null);
            }
            return null;
        });
    }

    /**
     * Removes the entry; 404 {@code MCP_SERVER_NOT_FOUND} when the scope's file has no entry of that name.
     */
    public void remove(String provider, String name, McpScope scope, String project) {
        facts(provider);
        Target t = target(provider, scope, project);
        files.locked(t.file(), () -> {
            if (t.shape() == McpShape.CODEX) {
                removeToml(t, name);
            } else {
                ObjectNode root = readJson(t);
                ObjectNode container = container(root, t.container(), false);
                if (container == null || !container.has(name)) {
                    throw notFound(provider, name, scope);
                }
                container.remove(name);
                files.write(t.file(), write(root), null);
            }
            return null;
        });
    }

    /** Adds the server at user scope to every MCP-capable provider; one failing does not undo the others. */
    public List<GlobalResult> addEverywhere(McpServerSpec spec) {
        List<GlobalResult> out = new ArrayList<>();
        for (String p : capableProviders()) {
            try {
                upsert(p, spec, McpScope.USER, null);
                out.add(new GlobalResult(p, true, null, null));
            } catch (WorkspaceException e) {
                out.add(new GlobalResult(p, false, e.code(), e.getMessage()));
            } catch (RuntimeException e) {
                out.add(new GlobalResult(p, false, ErrorCodes.INTERNAL_ERROR, "the entry could not be written"));
            }
        }
        return out;
    }

    /** The file an entry of this provider and scope is written to (for tests and docs). */
    public Path file(String provider, McpScope scope, String project) {
        facts(provider);
        return target(provider, scope, project).file();
    }

    // ---- targets -----------------------------------------------------------------------------------------------

    private ProviderFacts facts(String provider) {
        ProviderFacts f = catalog.require(provider);
        if (!f.mcp()) {
            throw new WorkspaceException.Validation(ProviderErrorCodes.UNSUPPORTED_CAPABILITY,
                    f.descriptor().mcp().unsupportedReason());
        }
        return f;
    }

    private Target target(String provider, McpScope scope, String project) {
        McpScope s = scope == null ? McpScope.USER : scope;
        Path dir = null;
        if (s == McpScope.LOCAL) {
            if (project == null || project.isBlank()) {
                throw WorkspaceException.Validation.of("scope local needs project (a registered project's name)");
            }
            dir = projects.apply(project);
        }
        ProviderDescriptor.Mcp mcp = facts(provider).descriptor().mcp();
        ConfigFormat format = ConfigFormat.of(mcp.format());
        if (s == McpScope.USER) {
            return new Target(provider, paths.resolve(provider, mcp.userFile()), mcp.shape(), mcp.userContainer(),
                    format);
        }
        Path folder = dir;
        List<String> container = mcp.projectContainer().stream()
                .map(k -> k.equals("{project}") ? folder.toString() : k).toList();
        return new Target(provider, paths.resolve(provider, mcp.projectFile(), folder), mcp.shape(), container,
                format);
    }

    // ---- JSON files --------------------------------------------------------------------------------------------

    private ObjectNode readJson(Target t) {
        Optional<String> text = files.read(t.file());
        if (text.isEmpty() || text.get().isBlank()) {
            return PLAIN.createObjectNode();
        }
        JsonNode n;
        try {
            n = t.format().jsonMapper().readTree(text.get());
        } catch (JsonProcessingException e) {
            throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, paths.display(t.file())
                    + " is not valid JSON (" + e.getOriginalMessage().replaceAll("\\s+", " ") + "); fix it first");
        }
        if (!(n instanceof ObjectNode o)) {
            throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, paths.display(t.file())
                    + " does not hold a JSON object; fix it first");
        }
        return o;
    }

    /** The object at {@code path}, created when {@code create}; null when missing and not created. */
    private ObjectNode container(ObjectNode root, List<String> path, boolean create) {
        ObjectNode cur = root;
        for (String key : path) {
            JsonNode next = cur.get(key);
            if (next == null || next.isNull()) {
                if (!create) {
                    return null;
                }
                cur = cur.putObject(key);
            } else if (next instanceof ObjectNode o) {
                cur = o;
            } else {
                throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, "'" + key + "' in the MCP file is not an "
                        + "object; fix it first");
            }
        }
        return cur;
    }

    private static ObjectNode entry(McpShape shape, McpServerSpec spec) {
        ObjectNode e = PLAIN.createObjectNode();
        switch (shape) {
            case CLAUDE -> {
                e.put("type", "stdio");
                e.put("command", spec.command());
                ArrayNode args = e.putArray("args");
                spec.args().forEach(args::add);
                ObjectNode env = e.putObject("env");
                spec.env().forEach(env::put);
            }
            case PLAIN -> {
                e.put("command", spec.command());
                ArrayNode args = e.putArray("args");
                spec.args().forEach(args::add);
                if (!spec.env().isEmpty()) {
                    ObjectNode env = e.putObject("env");
                    spec.env().forEach(env::put);
                }
            }
            case OPENCODE -> {
                e.put("type", "local");
                ArrayNode cmd = e.putArray("command");
                cmd.add(spec.command());
                spec.args().forEach(cmd::add);
                if (!spec.env().isEmpty()) {
                    ObjectNode env = e.putObject("environment");
                    spec.env().forEach(env::put);
                }
                e.put("enabled", true);
            }
            case CODEX -> throw new IllegalStateException("codex entries are TOML");
            case NONE -> throw new IllegalStateException("no MCP entries for this provider");
        }
        return e;
    }

    private static String write(ObjectNode root) {
        try {
            return PLAIN.writer(PRETTY).writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    private List<McpServer> read(String provider, McpScope scope, String project) {
        Target t = target(provider, scope, project);
        return files.locked(t.file(), () -> {
            List<McpServer> out = new ArrayList<>();
            JsonNode container;
            if (t.shape() == McpShape.CODEX) {
                container = parseToml(t, files.read(t.file()).orElse("")).path("mcp_servers");
            } else {
                container = readJson(t);
                for (String key : t.container()) {
                    container = container.path(key);
                }
            }
            if (!container.isObject()) {
                return out;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = container.properties().iterator(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getValue().isObject()) {
                    out.add(view(t.shape(), e.getKey(), scope, (ObjectNode) e.getValue()));
                }
            }
            return out;
        });
    }

    /** The normalised, masked view of a native entry. */
    private static McpServer view(McpShape shape, String name, McpScope scope, ObjectNode n) {
        String command = null;
        List<String> args = new ArrayList<>();
        Map<String, String> env = new LinkedHashMap<>();
        String url = null;
        String transport;
        if (shape == McpShape.OPENCODE) {
            if (n.path("command").isArray()) {
                for (JsonNode a : n.path("command")) {
                    if (command == null) {
                        command = a.asText();
                    } else {
                        args.add(a.asText());
                    }
                }
            } else if (n.path("command").isTextual()) {
                command = n.path("command").asText();
            }
            n.path("environment").properties().forEach(x -> env.put(x.getKey(), mask(x.getValue().asText())));
            url = text(n, "url");
            transport = "remote".equals(text(n, "type")) || url != null ? "http" : "stdio";
        } else {
            command = text(n, "command");
            n.path("args").forEach(a -> args.add(a.asText()));
            n.path("env").properties().forEach(x -> env.put(x.getKey(), mask(x.getValue().asText())));
            url = text(n, "url") != null ? text(n, "url") : text(n, "httpUrl");
            String type = text(n, "type");
            if (command != null) {
                transport = "stdio";
            } else if ("sse".equals(type) || (shape == McpShape.PLAIN && text(n, "url") != null
                    && text(n, "httpUrl") == null && !"http".equals(type))) {
                transport = "sse";
            } else {
                transport = "http";
            }
        }
        return new McpServer(name, scope, transport, command, List.copyOf(args), env, url,
                PLAIN.convertValue(masked(n), Map.class));
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    /** A copy of a native entry with secret-looking values masked. */
    private static JsonNode masked(JsonNode n) {
        JsonNode copy = n.deepCopy();
        maskIn(copy, false);
        return copy;
    }

    private static void maskIn(JsonNode n, boolean secretContainer) {
        if (n instanceof ObjectNode o) {
            for (Iterator<Map.Entry<String, JsonNode>> it = o.properties().iterator(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String k = e.getKey().toLowerCase(Locale.ROOT);
                boolean secretKey = k.equals("env") || k.equals("environment") || k.equals("headers")
                        || k.equals("http_headers") || k.equals("env_http_headers");
                boolean secretValue = secretContainer || k.contains("token") || k.contains("secret")
                        || k.contains("password") || k.contains("apikey") || k.contains("api_key")
                        || k.equals("authorization");
                if (e.getValue().isTextual() && secretValue) {
                    e.setValue(PLAIN.getNodeFactory().textNode(mask(e.getValue().asText())));
                } else {
                    maskIn(e.getValue(), secretKey);
                }
            }
        } else if (n instanceof ArrayNode a) {
            for (JsonNode x : a) {
                maskIn(x, secretContainer);
            }
        }
    }

    static String mask(String value) {
        return SecretBox.mask(value);
    }

    // ---- codex TOML --------------------------------------------------------------------------------------------

    private JsonNode parseToml(Target t, String text) {
        try {
            JsonNode n = ConfigFormat.TOML_MAPPER.readTree(text);
            return n == null ? PLAIN.createObjectNode() : n;
        } catch (IOException e) {
            throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, paths.display(t.file())
                    + " does not parse as TOML; fix it first");
        }
    }

    private void upsertToml(Target t, McpServerSpec spec) {
        String text = files.read(t.file()).orElse("");
        parseToml(t, text);
        String without = TomlMcpTables.remove(text, spec.name());
        if (parseTomlOrNull(without) == null || parseTomlOrNull(without).path("mcp_servers").has(spec.name())) {
            throw inline(t, spec.name());
        }
        String updated = TomlMcpTables.append(without, TomlMcpTables.tables(spec));
        JsonNode check = parseTomlOrNull(updated);
        JsonNode written = check == null ? null : check.path("mcp_servers").path(spec.name());
        if (written == null || !spec.command().equals(written.path("command").asText(null))
                || !spec.args().equals(strings(written.path("args")))
                || !spec.env().equals(stringMap(written.path("env")))) {
            throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, "the MCP entry could not be added to "
                    + paths.display(t.file()) + " without breaking it (is mcp_servers an inline table?); "
                    + "edit the file in the config editor");
        }
        files.write(t.file(), updated, null);
    }

    private void removeToml(Target t, String name) {
        String text = files.read(t.file()).orElse("");
        JsonNode before = parseToml(t, text);
        if (!before.path("mcp_servers").has(name)) {
            throw notFound(t.provider(), name, null);
        }
        String without = TomlMcpTables.remove(text, name);
        JsonNode after = parseTomlOrNull(without);
        if (after == null || after.path("mcp_servers").has(name)) {
            throw inline(t, name);
        }
        files.write(t.file(), without, null);
    }

    private static JsonNode parseTomlOrNull(String text) {
        try {
            JsonNode n = ConfigFormat.TOML_MAPPER.readTree(text);
            return n == null ? PLAIN.createObjectNode() : n;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private WorkspaceException inline(Target t, String name) {
        return new WorkspaceException.Conflict(ErrorCodes.CONFLICT, "the MCP server " + name + " in "
                + paths.display(t.file()) + " is not written as a [mcp_servers." + name + "] table; "
                + "edit it in the config editor");
    }

    private static List<String> strings(JsonNode a) {
        List<String> out = new ArrayList<>();
        a.forEach(x -> out.add(x.asText()));
        return out;
    }

    private static Map<String, String> stringMap(JsonNode o) {
        Map<String, String> out = new LinkedHashMap<>();
        o.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    private static WorkspaceException notFound(String provider, String name, McpScope scope) {
        return new WorkspaceException.NotFound(ProviderErrorCodes.MCP_SERVER_NOT_FOUND, "no MCP server '"
                + ProviderFacts.printable(name) + "' for " + provider + (scope == null ? "" : " in scope "
                + scope.wire()));
    }
}
