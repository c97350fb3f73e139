package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** A real server on a free loopback port with its own temporary data directory, and a small HTTP client. */
public final class TestServer implements AutoCloseable {
    public static final ObjectMapper JSON = new ObjectMapper();
    public static final String ADMIN = "admin";
    public static final String ADMIN_PASSWORD = "admin-password-1";

    public final WorkspaceServer server;
    public final Path dataDir;
    public final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TestServer(WorkspaceServer server, Path dataDir) {
        this.server = server;
        this.dataDir = dataDir;
    }

    public static TestServer start() {
        return start(c -> c);
    }

    public static TestServer start(UnaryOperator<ServerConfig> customize) {
        return start(customize, Map.of());
    }

    /**
     * A server whose environment is {@code env} plus {@code HOME}: a temporary folder unless {@code env} names one,
     * so provider management and the CLIs it runs never read or write the real home's CLI files; and plus this
     * process's {@code PATH} unless {@code env} names one.
     */
    public static TestServer start(UnaryOperator<ServerConfig> customize, Map<String, String> env) {
        try {
            Path dir = Files.createTempDirectory("aw-test-");
            ServerConfig config = customize.apply(config(dir.resolve("data")));
            Map<String, String> e = new java.util.HashMap<>(env);
            e.putIfAbsent("HOME", Files.createDirectories(dir.resolve("home")).toString());
            // an operator's environment has a PATH; runs inherit it from this map (the engine's environment)
            e.putIfAbsent("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
            // UPnP searches stay on this machine (the discard port never answers): tests send no multicast
            e.putIfAbsent("AW_UPNP_DISCOVERY", "127.0.0.1:9");
            return new TestServer(WorkspaceServer.start(config, e), dir.resolve("data"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads bodies as text, except event streams: those are closed at once and read as {@code <event-stream>}, so a
     * test that unexpectedly gets through to a live stream fails on its status instead of hanging.
     */
    static final HttpResponse.BodyHandler<String> STREAMS_CUT = info -> {
        boolean stream = info.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream");
        if (!stream) {
            return HttpResponse.BodySubscribers.ofString(java.nio.charset.StandardCharsets.UTF_8);
        }
        return HttpResponse.BodySubscribers.mapping(HttpResponse.BodySubscribers.ofInputStream(), in -> {
            try {
                in.close();
            } catch (IOException e) {
                // closing an abandoned stream: nothing to report
            }
            return "<event-stream>";
        });
    };
    /** The temporary-file folder: the tests' project folders lie below it. */
    public static final Path TMP = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize();

    /**
     * The configuration test servers start from: a free port, and the temporary-file folder as the project root
     * ({@code --project-roots}), since test projects live in temporary folders rather than in the home folder.
     */
    /**
     * An operator-like environment for a server a test starts itself: {@code HOME} a fresh folder beside the data
     * folder and this process's {@code PATH}. A login shell ({@code /shell}) then never reads the real home's
     * dotfiles (on a developer machine a {@code .bashrc} can wait a minute on a lock, as pyenv's rehash does).
     */
    public static Map<String, String> isolatedEnv(Path dir) {
        try {
            return Map.of("HOME", Files.createDirectories(dir.resolve("home")).toString(),
                    "PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ServerConfig config(Path dataDir) {
        return ServerConfig.forDataDir(dataDir).withPort(0).withProjectRoots(java.util.List.of(TMP));
    }

    /** Wraps a server started by the test itself (for settings {@link #start} does not take). */
    public static TestServer wrap(WorkspaceServer server, Path dataDir) {
        return new TestServer(server, dataDir);
    }

    /** The HOME the server's provider management uses. */
    public Path home() {
        return server.engine().providers().paths().home();
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    public String origin() {
        return "http://127.0.0.1:" + server.port();
    }

    /** A request with JSON body (or none when {@code body} is null) and header pairs. */
    public HttpResponse<String> send(String method, String path, Object body, String... headers) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
            if (body == null) {
                b.method(method, HttpRequest.BodyPublishers.noBody());
            } else {
                String text = body instanceof String s ? s : JSON.writeValueAsString(body);
                b.method(method, HttpRequest.BodyPublishers.ofString(text));
                b.header("Content-Type", "application/json");
            }
            for (int i = 0; i + 1 < headers.length; i += 2) {
                b.header(headers[i], headers[i + 1]);
            }
            return http.send(b.build(), STREAMS_CUT);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public HttpResponse<String> get(String path, String... headers) {
        return send("GET", path, null, headers);
    }

    public HttpResponse<String> post(String path, Object body, String... headers) {
        return send("POST", path, body, headers);
    }

    public HttpResponse<String> put(String path, Object body, String... headers) {
        return send("PUT", path, body, headers);
    }

    public HttpResponse<String> delete(String path, Object body, String... headers) {
        return send("DELETE", path, body, headers);
    }

    /** A query value, percent-encoded once (spaces as {@code %20}). */
    public static String q(String value) {
        return java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Registers {@code folder} as a project (quick-start) and returns the project's name. */
    public String quickStart(String sessionToken, Path folder) {
        return expect(post("/api/projects/quick-start", Map.of("path", folder.toString(), "create", true),
                bearer(sessionToken)), 200,
                null).path("name").asText();
    }

    public static JsonNode json(HttpResponse<String> res) {
        try {
            return JSON.readTree(res.body());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + res.body(), e);
        }
    }

    /** Asserts status and, for errors, the envelope's code. */
    public static JsonNode expect(HttpResponse<String> res, int status, String code) {
        assertEquals(status, res.statusCode(), () -> "body: " + res.body());
        JsonNode body = json(res);
        if (code != null) {
            assertEquals(false, body.path("success").asBoolean(true), res.body());
            assertEquals(code, body.path("error").path("code").asText(), res.body());
        }
        return body;
    }

    /** Registers the administrator and returns its session token. */
    public String registerAdmin() {
        HttpResponse<String> res = post("/api/auth/register", Map.of("username", ADMIN, "password", ADMIN_PASSWORD));
        return expect(res, 200, null).path("token").asText();
    }

    public String login(String user, String password) {
        return expect(post("/api/auth/login", Map.of("username", user, "password", password)), 200, null)
                .path("token").asText();
    }

    public static String[] bearer(String token) {
        return new String[] {"Authorization", "Bearer " + token};
    }

    /** Creates an API key with the given scopes (null: defaults) and returns {id, value}. */
    public String[] createKey(String sessionToken, String name, java.util.List<String> scopes) {
        Map<String, Object> body = new java.util.HashMap<>();
        body.put("name", name);
        if (scopes != null) {
            body.put("scopes", scopes);
        }
        JsonNode k = expect(post("/api/settings/api-keys", body, bearer(sessionToken)), 201, null);
        return new String[] {k.path("id").asText(), k.path("api_key").asText()};
    }

    @Override
    public void close() {
        server.close();
    }
}
