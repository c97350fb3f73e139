import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The training run of the server's JDK AOT cache (scripts/aot-cache.sh runs it; JEP 483/514/515): starts the server
 * jar with the given JVM flags plus {@code -XX:AOTCacheOutput=CACHE} on a fresh data directory over HOME, does what
 * a first session does (register, log in, create an API key, list projects until the index has listed every
 * session, open each project's sessions, pages of messages, searches, the index status, the OpenAPI document, a few
 * refused requests), then stops the server with SIGTERM; the JVM writes the cache as it exits. So the cache holds
 * the classes and method profiles of start-up and of the listing, index and search paths, not only of start-up.
 *
 * <p>Usage: java -cp 'workspace-server/target/libs/*' scripts/AotTraining.java JAVA SERVER_JAR HOME DATA_DIR CACHE
 * LOG [JVM flags...]
 */
public class AotTraining {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final ObjectMapper JSON = new ObjectMapper();
    static String base;

    public static void main(String[] args) throws Exception {
        String java = args[0];
        String jar = args[1];
        Path home = Path.of(args[2]);
        Path data = Path.of(args[3]);
        String cache = args[4];
        Path log = Path.of(args[5]);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        base = "http://127.0.0.1:" + port;
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(Arrays.asList(args).subList(6, args.length));
        cmd.addAll(List.of("-XX:AOTCacheOutput=" + cache, "-jar", jar, "--port", Integer.toString(port),
                "--data-dir", data.toString(), "--history-home", home.toString()));
        Process server = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        try {
            train(server);
        } catch (Exception | AssertionError e) {
            server.destroyForcibly().waitFor();
            throw e;
        }
        server.destroy();
        if (!server.waitFor(180, TimeUnit.SECONDS)) {
            server.destroyForcibly().waitFor();
            throw new IllegalStateException("the training server did not exit within 180 s (see " + log + ")");
        }
    }

    static void train(Process server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            if (!server.isAlive()) {
                throw new IllegalStateException("the training server exited with " + server.exitValue());
            }
            try {
                if (send("GET", "/health", null, null).statusCode() == 200) {
                    break;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the training server did not answer /health within 120 s");
            }
            Thread.sleep(50);
        }
        // a throwaway account on the throwaway data directory
        String password = HexFormat.of().formatHex(SecureRandom.getInstanceStrong().generateSeed(12));
        String credentials = JSON.writeValueAsString(java.util.Map.of("username", "training", "password", password));
        expect(201, 200, send("POST", "/api/auth/register", credentials, null), "register");
        send("POST", "/api/auth/login", JSON.writeValueAsString(java.util.Map.of("username", "training",
                "password", "wrong-password-1")), null);
        String token = JSON.readTree(expect(200, 200, send("POST", "/api/auth/login", credentials, null), "login")
                .body()).get("token").asText();
        String key = JSON.readTree(expect(200, 201, send("POST", "/api/settings/api-keys",
                "{\"name\":\"training\",\"scopes\":[\"projects:read\"]}", "Bearer " + token), "api key").body())
                .get("api_key").asText();
        String auth = "Key " + key;
        send("GET", "/api/auth/user", null, "Bearer " + token);
        send("GET", "/api/projects", null, null);
        send("GET", "/api/no-such-route", null, auth);
        send("GET", "/api/openapi.json", null, null);

        // until the index has listed every session (its status says so), then until it is ready
        JsonNode status;
        do {
            send("GET", "/api/projects", null, auth);
            status = JSON.readTree(expect(200, 200, send("GET", "/api/history/index", null, auth), "index").body());
            Thread.sleep(100);
        } while (status.path("listedAt").isNull() || status.path("listedAt").isMissingNode());
        for (int round = 0; round < 3; round++) {
            JsonNode projects = JSON.readTree(expect(200, 200, send("GET", "/api/projects", null, auth),
                    "projects").body());
            for (JsonNode p : projects) {
                String name = enc(p.path("name").asText());
                JsonNode sessions = JSON.readTree(send("GET", "/api/projects/" + name + "/sessions", null, auth)
                        .body());
                int n = 0;
                for (JsonNode s : sessions) {
                    String id = s.path("id").asText();
                    if (id.isEmpty() || n++ >= 3) {
                        continue;
                    }
                    String messages = "/api/sessions/" + enc(id) + "/messages?projectName=" + name;
                    send("GET", messages + "&limit=50&offset=0", null, auth);
                    send("GET", messages + "&limit=50&offset=50", null, auth);
                }
            }
            for (String q : List.of("config", "error", "request", "handler", "qwzxvortalk")) {
                send("GET", "/api/search/conversations?q=" + q + "&limit=20", null, auth);
            }
        }
        long ready = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        do {
            status = JSON.readTree(send("GET", "/api/history/index", null, auth).body());
            send("GET", "/api/projects", null, auth);
            Thread.sleep(200);
        } while (!"ready".equals(status.path("state").asText()) && System.nanoTime() < ready);
        for (int i = 0; i < 20; i++) {
            send("GET", "/api/projects", null, auth);
            send("GET", "/api/search/conversations?q=config&limit=20", null, auth);
            send("GET", "/health", null, null);
        }
    }

    static HttpResponse<String> expect(int ok1, int ok2, HttpResponse<String> r, String what) {
        if (r.statusCode() != ok1 && r.statusCode() != ok2) {
            throw new IllegalStateException(what + " answered " + r.statusCode());
        }
        return r;
    }

    static HttpResponse<String> send(String method, String path, String body, String auth) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (auth != null && auth.startsWith("Bearer ")) {
            b.header("Authorization", auth);
        } else if (auth != null) {
            b.header("X-API-Key", auth.substring("Key ".length()));
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
