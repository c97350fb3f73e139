package org.agentworkspace.testkit.contract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tiny stand-in for the foundation routes, written from docs/openapi.yaml, so the suite's own machinery (runner,
 * extension, provider SPI, client, validator) can be exercised end to end without the real server. It is not the
 * product: the real server is checked by running the same suite against it.
 */
final class ReferenceServer implements AutoCloseable {
    /** A deliberate deviation from the document, to prove the suite notices. */
    enum Defect { NONE, HEALTH_VERSION_NOT_SEMVER, KEY_LISTED_IN_FULL, INACTIVE_KEY_ACCEPTED, TICKET_REUSABLE }

    private static final Set<String> SCOPES = Set.of("projects:read", "projects:write", "tasks:read", "tasks:write",
            "providers:read", "system:update", "orchestration:read", "orchestration:write");
    private static final Pattern KEY_ID = Pattern.compile("/api/settings/api-keys/(\\d+)(/toggle)?");
    private static final Pattern USER_ID = Pattern.compile("/api/users/(\\d+)");
    private static final Pattern USERNAME = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

    private final ObjectMapper json = new ObjectMapper();
    private final JsonNodeFactory nodes = JsonNodeFactory.instance;
    private final HttpServer server;
    private final Defect defect;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Long, User> users = new LinkedHashMap<>();
    private final Map<String, Long> tokens = new LinkedHashMap<>();
    private final Map<Long, Key> keys = new LinkedHashMap<>();
    private final Map<String, Instant> tickets = new LinkedHashMap<>();
    private final Map<String, Principal> ticketOwners = new LinkedHashMap<>();
    private final String document;
    private long nextId = 1;

    private record User(long id, String username, String password, boolean admin, Instant created) {
    }

    private record Key(long id, long userId, String name, String secret, Instant created, boolean active,
                       List<String> scopes) {
    }

    private record Principal(User user, boolean viaKey, Long keyId) {
    }

    private record Reply(int status, JsonNode body, Map<String, String> headers) {
    }

    private static final class Failure extends RuntimeException {
        private final int status;
        private final String code;

        Failure(int status, String code, String message) {
            super(message, null, false, false);
            this.status = status;
            this.code = code;
        }
    }

    private ReferenceServer(Defect defect) throws IOException {
        this.defect = defect;
        this.document = json.writeValueAsString(OpenApiContract.bundled().document());
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    static ReferenceServer start(Defect defect) throws IOException {
        return new ReferenceServer(defect);
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        if (exchange.getRequestURI().getRawPath().equals("/api/events")
                && exchange.getRequestMethod().equals("GET")) {
            Principal principal;
            lock.lock();
            try {
                principal = streamPrincipal(exchange);
            } catch (Failure f) {
                principal = null;
                reply(exchange, error(f.status, f.code, f.getMessage()));
            } finally {
                lock.unlock();
            }
            if (principal != null) {
                events(exchange, principal);
            }
            return;
        }
        Reply reply;
        lock.lock();
        try {
            reply = route(exchange);
        } catch (Failure f) {
            reply = error(f.status, f.code, f.getMessage());
        } catch (RuntimeException e) {
            reply = error(500, "INTERNAL_ERROR", "unexpected failure");
        } finally {
            lock.unlock();
        }
        reply(exchange, reply);
    }

    private void reply(HttpExchange exchange, Reply reply) throws IOException {
        byte[] bytes = json.writeValueAsBytes(reply.body());
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
        exchange.sendResponseHeaders(reply.status(), bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** A stream ticket in the query (single use), else the ordinary credentials. */
    private Principal streamPrincipal(HttpExchange exchange) {
        String query = Optional.ofNullable(exchange.getRequestURI().getRawQuery()).orElse("");
        Matcher ticket = Pattern.compile("(?:^|&)streamTicket=([^&]*)").matcher(query);
        if (ticket.find()) {
            boolean reusable = defect == Defect.TICKET_REUSABLE;
            Instant expires = reusable ? tickets.get(ticket.group(1)) : tickets.remove(ticket.group(1));
            if (expires == null || expires.isBefore(Instant.now())) {
                throw new Failure(401, "INVALID_STREAM_TICKET", "unknown, used or expired ticket");
            }
            return reusable ? ticketOwners.get(ticket.group(1)) : ticketOwners.remove(ticket.group(1));
        }
        return authenticate(exchange);
    }

    private void events(HttpExchange exchange, Principal principal) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            long id = 1;
            writeEvent(out, id++, "ready", object("version", "0.1.0",
                    "user", object("id", principal.user().id(), "username", principal.user().username())));
            long sinceBeat = 0;
            while (true) {
                Thread.sleep(200);
                sinceBeat += 200;
                boolean valid;
                lock.lock();
                try {
                    valid = users.containsKey(principal.user().id()) && (principal.keyId() == null
                            || (keys.containsKey(principal.keyId()) && keys.get(principal.keyId()).active()));
                } finally {
                    lock.unlock();
                }
                if (!valid) {
                    writeEvent(out, id, "error", object("code", "CREDENTIAL_REVOKED", "message", "credential revoked"));
                    return;
                }
                if (sinceBeat >= 15_000) {
                    sinceBeat = 0;
                    writeEvent(out, id++, "heartbeat", object("timestamp", Instant.now().toString()));
                }
            }
        } catch (IOException | InterruptedException e) {
            // the client went away, or the server is stopping
        }
    }

    private void writeEvent(OutputStream out, long id, String name, JsonNode data) throws IOException {
        out.write(("id: " + id + "\nevent: " + name + "\ndata: " + json.writeValueAsString(data) + "\n\n")
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private Reply route(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath();
        Matcher key = KEY_ID.matcher(path);
        Matcher user = USER_ID.matcher(path);
        return switch (path) {
            case "/health" -> only(method, "GET", () -> ok(health()));
            case "/api/openapi.json" -> only(method, "GET", () -> ok(parse(document)));
            case "/api/auth/status" -> only(method, "GET", () -> ok(status(exchange)));
            case "/api/auth/register" -> only(method, "POST", () -> register(exchange));
            case "/api/auth/login" -> only(method, "POST", () -> login(exchange));
            case "/api/auth/user" -> only(method, "GET",
                    () -> ok(object("user", userJson(authenticate(exchange).user()))));
            case "/api/auth/logout" -> only(method, "POST", () -> logout(exchange));
            case "/api/auth/stream-ticket" -> only(method, "POST", () -> ticket(exchange));
            case "/api/settings/api-keys" -> switch (method) {
                case "GET" -> listKeys(exchange);
                case "POST" -> createKey(exchange);
                default -> throw new Failure(405, "METHOD_NOT_ALLOWED", "method not allowed");
            };
            case "/api/agent" -> only(method, "POST", () -> agent(exchange));
            case "/api/automation/run" -> only(method, "POST", () -> automationRun(exchange));
            case "/api/automation/runs" -> only(method, "GET", () -> {
                scoped(exchange, "tasks:read");
                String q = Optional.ofNullable(exchange.getRequestURI().getRawQuery()).orElse("");
                if (q.matches("(^|.*&)limit=0(&.*|$)")) {
                    throw new Failure(400, "VALIDATION_FAILED", "limit must be 1-200");
                }
                return ok(nodes.arrayNode());
            });
            case "/api/users" -> switch (method) {
                case "GET" -> listUsers(exchange);
                case "POST" -> createUser(exchange);
                default -> throw new Failure(405, "METHOD_NOT_ALLOWED", "method not allowed");
            };
            default -> {
                if (key.matches()) {
                    long id = Long.parseLong(key.group(1));
                    if (key.group(2) == null) {
                        yield only(method, "DELETE", () -> deleteKey(exchange, id));
                    }
                    yield only(method, "PATCH", () -> toggleKey(exchange, id));
                }
                if (path.startsWith(WORKFLOWS)) {
                    yield workflows(exchange, method, path.substring(WORKFLOWS.length()));
                }
                if (path.startsWith("/api/automation/runs/")) {
                    scoped(exchange, path.endsWith("/cancel") || path.endsWith("/merge") || path.endsWith("/discard")
                            ? "tasks:write" : "tasks:read");
                    throw new Failure(404, "RUN_NOT_FOUND", "no such run");
                }
                if (user.matches()) {
                    yield only(method, "DELETE", () -> deleteUser(exchange, Long.parseLong(user.group(1))));
                }
                throw new Failure(404, "ROUTE_NOT_FOUND", "no such route");
            }
        };
    }

    private interface Handler {
        Reply handle() throws IOException;
    }

    private Reply only(String method, String allowed, Handler handler) throws IOException {
        if (!method.equals(allowed)) {
            throw new Failure(405, "METHOD_NOT_ALLOWED", "method not allowed");
        }
        return handler.handle();
    }

    private ObjectNode health() {
        return object("status", "ok", "timestamp", Instant.now().toString(),
                "version", defect == Defect.HEALTH_VERSION_NOT_SEMVER ? "dev" : "0.1.0", "installMode", "runtime-dir");
    }

    private ObjectNode status(HttpExchange exchange) {
        Optional<Principal> principal = optionalPrincipal(exchange);
        return object("success", true, "isAuthenticated", principal.isPresent(), "needsSetup", users.isEmpty(),
                "user", principal.map(p -> (JsonNode) userJson(p.user())).orElse(nodes.nullNode()));
    }

    private Reply register(HttpExchange exchange) throws IOException {
        JsonNode body = body(exchange);
        if (!users.isEmpty()) {
            throw new Failure(403, "SETUP_COMPLETE", "setup is complete");
        }
        String username = body.path("username").asText("");
        String password = body.path("password").asText("");
        if (!USERNAME.matcher(username).matches() || password.length() < 8 || password.length() > 1024) {
            throw new Failure(400, "VALIDATION_FAILED", "invalid username or password");
        }
        User user = new User(nextId++, username, password, true, Instant.now());
        users.put(user.id(), user);
        return signedIn(user);
    }

    private Reply login(HttpExchange exchange) throws IOException {
        JsonNode body = body(exchange);
        String username = body.path("username").asText("");
        String password = body.path("password").asText("");
        User user = users.values().stream()
                .filter(u -> u.username().equals(username) && u.password().equals(password))
                .findFirst()
                .orElseThrow(() -> new Failure(401, "INVALID_CREDENTIALS", "invalid username or password"));
        return signedIn(user);
    }

    private Reply signedIn(User user) {
        String token = "eyJ" + random(24) + "." + random(24) + "." + random(32);
        tokens.put(token, user.id());
        return new Reply(200, object("success", true, "token", token, "user", userJson(user)),
                Map.of("Set-Cookie", "token=" + token + "; Path=/; HttpOnly; SameSite=Lax; Max-Age=604800"));
    }

    private Reply logout(HttpExchange exchange) {
        authenticate(exchange);
        return new Reply(200, object("success", true),
                Map.of("Set-Cookie", "token=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"));
    }

    private Reply ticket(HttpExchange exchange) throws IOException {
        Principal principal = authenticate(exchange);
        body(exchange);
        String ticket = random(32);
        Instant expires = Instant.now().plusSeconds(30);
        tickets.put(ticket, expires);
        ticketOwners.put(ticket, principal);
        return new Reply(200, object("success", true, "ticket", ticket, "expiresAt", expires.toString(),
                "expiresIn", 30), Map.of("Cache-Control", "no-store"));
    }

    private Reply listKeys(HttpExchange exchange) {
        Principal principal = sessionOnly(exchange);
        ArrayNode list = nodes.arrayNode();
        keys.values().stream().filter(k -> k.userId() == principal.user().id())
                .forEach(k -> list.add(keyJson(k, defect == Defect.KEY_LISTED_IN_FULL)));
        return ok(list);
    }

    private Reply createKey(HttpExchange exchange) throws IOException {
        Principal principal = sessionOnly(exchange);
        JsonNode body = body(exchange);
        String name = body.path("name").asText("");
        if (name.isEmpty() || name.length() > 100) {
            throw new Failure(400, "VALIDATION_FAILED", "name must have 1 to 100 characters");
        }
        List<String> scopes = new ArrayList<>();
        if (body.has("scopes")) {
            body.path("scopes").forEach(s -> scopes.add(s.asText()));
            if (scopes.isEmpty()) {
                throw new Failure(400, "VALIDATION_FAILED", "scopes must not be empty");
            }
            for (String s : scopes) {
                if (!SCOPES.contains(s)) {
                    throw new Failure(400, "UNKNOWN_SCOPE", "unknown scope");
                }
            }
        } else {
            scopes.addAll(List.of("projects:read", "projects:write", "tasks:read", "tasks:write", "providers:read"));
        }
        Key key = new Key(nextId++, principal.user().id(), name, "px_" + HexFormat.of().formatHex(bytes(16)),
                Instant.now(), true, List.copyOf(scopes));
        keys.put(key.id(), key);
        return new Reply(201, keyJson(key, true), Map.of("Cache-Control", "no-store"));
    }

    private Reply deleteKey(HttpExchange exchange, long id) {
        Principal principal = sessionOnly(exchange);
        Key key = ownKey(principal, id);
        keys.remove(key.id());
        return ok(object("success", true));
    }

    private Reply toggleKey(HttpExchange exchange, long id) throws IOException {
        Principal principal = sessionOnly(exchange);
        JsonNode body = body(exchange);
        Key key = ownKey(principal, id);
        if (!body.path("is_active").isBoolean()) {
            throw new Failure(400, "VALIDATION_FAILED", "is_active must be a boolean");
        }
        Key updated = new Key(key.id(), key.userId(), key.name(), key.secret(), key.created(),
                body.path("is_active").asBoolean(), key.scopes());
        keys.put(id, updated);
        return ok(keyJson(updated, false));
    }

    private Reply listUsers(HttpExchange exchange) {
        admin(exchange);
        ArrayNode list = nodes.arrayNode();
        users.values().forEach(u -> list.add(userJson(u)));
        return ok(list);
    }

    private Reply createUser(HttpExchange exchange) throws IOException {
        admin(exchange);
        JsonNode body = body(exchange);
        String username = body.path("username").asText("");
        String password = body.path("password").asText("");
        if (!USERNAME.matcher(username).matches() || password.length() < 8 || password.length() > 1024) {
            throw new Failure(400, "VALIDATION_FAILED", "invalid username or password");
        }
        if (users.values().stream().anyMatch(u -> u.username().equalsIgnoreCase(username))) {
            throw new Failure(409, "USERNAME_TAKEN", "username exists");
        }
        User user = new User(nextId++, username, password, body.path("is_admin").asBoolean(false), Instant.now());
        users.put(user.id(), user);
        return new Reply(201, userJson(user), Map.of());
    }

    private Reply deleteUser(HttpExchange exchange, long id) {
        Principal principal = admin(exchange);
        if (!users.containsKey(id)) {
            throw new Failure(404, "USER_NOT_FOUND", "no such user");
        }
        if (principal.user().id() == id) {
            throw new Failure(409, "CONFLICT", "you cannot delete yourself");
        }
        users.remove(id);
        keys.values().removeIf(k -> k.userId() == id);
        tokens.values().removeIf(u -> u == id);
        return ok(object("success", true));
    }

    private Principal admin(HttpExchange exchange) {
        Principal principal = sessionOnly(exchange);
        if (!principal.user().admin()) {
            throw new Failure(403, "ADMIN_REQUIRED", "administrators only");
        }
        return principal;
    }

    private Key ownKey(Principal principal, long id) {
        Key key = keys.get(id);
        if (key == null || key.userId() != principal.user().id()) {
            throw new Failure(404, "API_KEY_NOT_FOUND", "no such key");
        }
        return key;
    }

    /** The agent-run routes up to validation: this reference runs no agents (no run is ever started). */
    private static final Set<String> PROVIDERS = Set.of("claude", "cursor", "codex", "gemini", "qwen", "opencode",
            "grok");

    private Principal scoped(HttpExchange exchange, String scope) {
        Principal p = authenticate(exchange);
        if (p.viaKey() && !keys.get(p.keyId()).scopes().contains(scope)) {
            throw new Failure(403, "INSUFFICIENT_SCOPE", "needs " + scope);
        }
        return p;
    }

    private Reply agent(HttpExchange exchange) throws IOException {
        Optional<Principal> p = optionalPrincipal(exchange);
        if (p.isEmpty() || !p.get().viaKey()) {
            throw new Failure(401, "API_KEY_REQUIRED", "this route needs an API key");
        }
        scoped(exchange, "tasks:write");
        JsonNode body = body(exchange);
        if (!body.path("message").isTextual()) {
            throw new Failure(400, "VALIDATION_FAILED", "message is required");
        }
        if (!PROVIDERS.contains(body.path("provider").asText("claude"))) {
            throw new Failure(400, "UNKNOWN_PROVIDER", "unknown provider");
        }
        if (body.has("githubUrl")) {
            if (!body.path("githubUrl").asText().matches("https://github\\.com/[A-Za-z0-9._-]+/[A-Za-z0-9._-]+")) {
                throw new Failure(400, "INVALID_REPOSITORY_URL", "invalid repository URL");
            }
        } else if (!body.has("projectPath")) {
            throw new Failure(400, "VALIDATION_FAILED", "projectPath or githubUrl is required");
        }
        throw new Failure(503, "PROVIDER_NOT_INSTALLED", "this reference runs no agents");
    }

    private static final String WORKFLOWS = "/api/orchestration/workflows";
    private static final Map<String, String> DEPRECATED = Map.of("Deprecation", "true",
            "Link", "</api/automation/run>; rel=\"successor-version\"");

    /**
     * The workflow family as the compatibility layer answers it (docs/workflows.md), without running anything:
     * the list, the context, the agent_team preview of plain workers, no runs.
     */
    private Reply workflows(HttpExchange exchange, String method, String rest) throws IOException {
        Reply r;
        if (rest.isEmpty() || rest.equals("/context")) {
            r = only(method, "GET", () -> {
                scoped(exchange, "tasks:read");
                return ok(rest.isEmpty()
                        ? object("workflows", List.of(Map.of("id", "agent_team", "name", "Agent team")))
                        : object("appRoot", "/srv/aw", "defaultWorkspaceTarget", "selected_project",
                        "supportedWorkspaceTargets", List.of("selected_project", "custom")));
            });
        } else if (rest.equals("/runs")) {
            r = only(method, "GET", () -> {
                scoped(exchange, "tasks:read");
                return ok(object("runs", List.of()));
            });
        } else if (rest.startsWith("/runs/")) {
            scoped(exchange, rest.endsWith("/cancel") ? "tasks:write" : "tasks:read");
            throw new Failure(404, "WORKFLOW_RUN_NOT_FOUND", "no such workflow run");
        } else if (rest.matches("/[^/]+/(preview|runs)")) {
            boolean preview = rest.endsWith("/preview");
            r = only(method, "POST", () -> {
                scoped(exchange, preview ? "tasks:read" : "tasks:write");
                if (!rest.startsWith("/agent_team/")) {
                    throw new Failure(404, "WORKFLOW_NOT_FOUND", "no such workflow");
                }
                JsonNode body = body(exchange);
                for (java.util.Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
                    String name = names.next();
                    if (!name.equals("input") && !name.equals("metadata")) {
                        throw new Failure(400, "VALIDATION_FAILED", "unknown field " + name);
                    }
                }
                JsonNode meta = body.path("metadata");
                int parallel = meta.path("settings").path("maxParallelAgents").asInt(3);
                if (parallel < 1 || parallel > 12 || !meta.path("agents").isArray() || meta.path("agents").isEmpty()) {
                    throw new Failure(400, "INVALID_WORKFLOW_METADATA", "invalid workflow metadata");
                }
                if (!preview) {
                    throw new Failure(404, "PROJECT_NOT_FOUND", "no such project");
                }
                ArrayNode graph = nodes.arrayNode();
                graph.add(object("id", "coordinator", "inputs", List.of()));
                List<String> workers = new ArrayList<>();
                Map<String, Integer> counts = new LinkedHashMap<>();
                for (JsonNode a : meta.path("agents")) {
                    String adapter = a.path("adapterId").asText();
                    String id = "worker-" + adapter + "-" + counts.merge(adapter, 1, Integer::sum);
                    graph.add(object("id", id, "adapterId", adapter, "inputs", List.of("coordinator")));
                    workers.add(id);
                }
                graph.add(object("id", "final-report", "inputs", workers));
                return ok(object("workflow", Map.of("id", "agent_team"), "nodeCount", graph.size(), "nodes", graph));
            });
        } else {
            throw new Failure(404, "ROUTE_NOT_FOUND", "no such route");
        }
        Map<String, String> headers = new LinkedHashMap<>(r.headers());
        headers.putAll(DEPRECATED);
        return new Reply(r.status(), r.body(), headers);
    }

    private Reply automationRun(HttpExchange exchange) throws IOException {
        scoped(exchange, "tasks:write");
        JsonNode body = body(exchange);
        java.util.Set<String> known = java.util.Set.of("prompt", "agentType", "projectId", "projectPath", "model",
                "timeoutMs", "isolation", "keepWorktree");
        for (java.util.Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw new Failure(400, "VALIDATION_FAILED", "unknown field " + name);
            }
        }
        if (!body.path("prompt").isTextual()) {
            throw new Failure(400, "VALIDATION_FAILED", "prompt is required");
        }
        String isolation = body.path("isolation").asText("host");
        if (isolation.equals("docker")) {
            throw new Failure(400, "ISOLATION_UNAVAILABLE", "no container image is configured");
        }
        if (!isolation.equals("host") && !isolation.equals("worktree")) {
            throw new Failure(400, "VALIDATION_FAILED", "isolation must be host, worktree or docker");
        }
        Matcher marker = Pattern.compile("^\\[agent:([^\\]]+)\\]").matcher(body.path("prompt").asText());
        String agent = body.path("agentType").asText(marker.find() ? marker.group(1) : "claude");
        if (!PROVIDERS.contains(agent)) {
            throw new Failure(400, "UNKNOWN_PROVIDER", "unknown provider");
        }
        throw new Failure(404, "PROJECT_NOT_FOUND", "no such project");
    }

    private Principal sessionOnly(HttpExchange exchange) {
        Principal principal = authenticate(exchange);
        if (principal.viaKey()) {
            throw new Failure(403, "SESSION_REQUIRED", "API keys cannot do this");
        }
        return principal;
    }

    private Principal authenticate(HttpExchange exchange) {
        return optionalPrincipal(exchange).orElseThrow(() -> new Failure(401, "AUTH_REQUIRED", "sign in first"));
    }

    private Optional<Principal> optionalPrincipal(HttpExchange exchange) {
        String query = Optional.ofNullable(exchange.getRequestURI().getRawQuery()).orElse("");
        if (query.matches("(^|.*&)(apiKey|token)=.*")) {
            throw new Failure(401, "QUERY_CREDENTIALS_DISABLED", "credentials in the URL are not accepted");
        }
        if (query.matches("(^|.*&)streamTicket=.*")) {
            throw new Failure(401, "INVALID_STREAM_TICKET", "stream tickets are accepted on streams only");
        }
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization != null) {
            if (!authorization.startsWith("Bearer ")) {
                throw new Failure(401, "INVALID_TOKEN", "unsupported authorization");
            }
            String value = authorization.substring(7);
            return Optional.of(value.startsWith("px_") || value.startsWith("ck_") ? byKey(value) : byToken(value));
        }
        String apiKey = exchange.getRequestHeaders().getFirst("X-API-Key");
        if (apiKey != null) {
            return Optional.of(byKey(apiKey));
        }
        String cookies = exchange.getRequestHeaders().getFirst("Cookie");
        if (cookies != null) {
            for (String cookie : cookies.split(";")) {
                String[] kv = cookie.trim().split("=", 2);
                if (kv[0].equals("token") && kv.length == 2) {
                    return Optional.of(byToken(kv[1]));
                }
            }
        }
        return Optional.empty();
    }

    private Principal byToken(String token) {
        Long userId = tokens.get(token);
        if (userId == null || !users.containsKey(userId)) {
            throw new Failure(401, "INVALID_TOKEN", "invalid or expired token");
        }
        return new Principal(users.get(userId), false, null);
    }

    private Principal byKey(String secret) {
        if (!secret.matches("px_[0-9a-f]{32}")) {
            throw new Failure(401, "INVALID_API_KEY", "invalid API key");
        }
        Key key = keys.values().stream().filter(k -> k.secret().equals(secret)).findFirst()
                .filter(k -> k.active() || defect == Defect.INACTIVE_KEY_ACCEPTED)
                .orElseThrow(() -> new Failure(401, "INVALID_API_KEY", "invalid API key"));
        return new Principal(users.get(key.userId()), true, key.id());
    }

    private JsonNode body(HttpExchange exchange) throws IOException {
        byte[] raw = exchange.getRequestBody().readAllBytes();
        if (raw.length == 0) {
            return nodes.objectNode();
        }
        String type = Optional.ofNullable(exchange.getRequestHeaders().getFirst("Content-Type")).orElse("");
        if (!type.toLowerCase().startsWith("application/json")) {
            throw new Failure(415, "UNSUPPORTED_MEDIA_TYPE", "JSON expected");
        }
        try {
            return json.readTree(new String(raw, StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            throw new Failure(400, "INVALID_JSON", "body is not valid JSON");
        }
    }

    private ObjectNode userJson(User user) {
        return object("id", user.id(), "username", user.username(), "email", null,
                "created_at", user.created().toString(), "is_admin", user.admin());
    }

    private ObjectNode keyJson(Key key, boolean full) {
        ArrayNode scopes = nodes.arrayNode();
        key.scopes().forEach(scopes::add);
        String secret = full ? key.secret() : "px_\u2026" + key.secret().substring(key.secret().length() - 4);
        return object("id", key.id(), "key_name", key.name(), "api_key", secret,
                "created_at", key.created().toString(), "last_used", null, "is_active", key.active(),
                "scopes", scopes, "legacy", false);
    }

    private Reply ok(JsonNode body) {
        return new Reply(200, body, Map.of());
    }

    private Reply error(int status, String code, String message) {
        return new Reply(status, object("success", false, "error", object("code", code, "message", message)),
                Map.of());
    }

    private JsonNode parse(String text) {
        try {
            return json.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private ObjectNode object(Object... keyValues) {
        ObjectNode node = nodes.objectNode();
        for (int i = 0; i < keyValues.length; i += 2) {
            node.set((String) keyValues[i], json.valueToTree(keyValues[i + 1]));
        }
        return node;
    }

    private static String random(int bytes) {
        return HexFormat.of().formatHex(bytes(bytes));
    }

    private static byte[] bytes(int count) {
        byte[] bytes = new byte[count];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }
}
