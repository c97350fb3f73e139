package org.agentworkspace.server.system;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import org.agentworkspace.core.system.UpdateSettings;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Self-update in {@code runtime-dir} mode and restart, over HTTP against a real server: the manifest and package
 * come from WireMock (a real zip built here), the runtime directory is a temporary folder, and the process exit is
 * observed through the server's exit hook (never the test JVM's).
 */
class SystemRoutesTest {
    @TempDir
    Path tmp;

    private WireMockServer remote;
    private TestServer s;
    private CompletableFuture<Integer> exited;
    private Path runtime;
    private String running;
    private int starts;

    @BeforeEach
    void remote() throws IOException {
        remote = new WireMockServer(WireMockConfiguration.options().dynamicPort().bindAddress("127.0.0.1"));
        remote.start();
        runtime = tmp.resolve("runtime");
        Files.createDirectories(runtime.resolve("versions"));
    }

    @AfterEach
    void stop() {
        if (s != null) {
            s.close();
        }
        remote.stop();
    }

    /** A server in {@code mode} whose update settings are {@code update}; its exits complete {@link #exited}. */
    private String start(String mode, UpdateSettings update) throws IOException {
        exited = new CompletableFuture<>();
        Path data = tmp.resolve("data-" + (++starts));
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", Files.createDirectories(tmp.resolve("home")).toString());
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("AW_UPNP_DISCOVERY", "127.0.0.1:9");
        env.put("AW_INSTALL_MODE", mode);
        WorkspaceServer server = WorkspaceServer.start(org.agentworkspace.server.TestServer.config(data).withUpdate(update),
                env, exited::complete);
        s = TestServer.wrap(server, data);
        running = expect(s.get("/health"), 200, null).path("version").asText();
        assertEquals(mode, expect(s.get("/health"), 200, null).path("installMode").asText());
        // the running version as installed: runtime/versions/<running>/ and current pointing at it
        Path old = Files.createDirectories(runtime.resolve("versions").resolve(running));
        Files.writeString(old.resolve("workspace-server.jar"), "old jar");
        if (!Files.exists(runtime.resolve("current"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(runtime.resolve("current"), Path.of("versions", running));
        }
        return s.registerAdmin();
    }

    private UpdateSettings settings(String manifestPath) {
        return UpdateSettings.defaults(tmp.resolve("data")).withRuntimeDir(runtime)
                .withManifestUrl(manifestPath == null ? null : URI.create(remote.baseUrl() + manifestPath));
    }

    private String newer() {
        return (Integer.parseInt(running.split("\\.")[0]) + 1) + ".0.0";
    }

    /** A zip holding workspace-server.jar and libs/a.jar (and {@code extra} entries: name to content). */
    static byte[] zip(Map<String, String> extra, boolean withJar) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(bytes)) {
            if (withJar) {
                z.putNextEntry(new ZipEntry("workspace-server.jar"));
                z.write("new jar".getBytes(StandardCharsets.UTF_8));
                z.putNextEntry(new ZipEntry("libs/"));
                z.putNextEntry(new ZipEntry("libs/a.jar"));
                z.write("a library".getBytes(StandardCharsets.UTF_8));
            }
            for (Map.Entry<String, String> e : extra.entrySet()) {
                z.putNextEntry(new ZipEntry(e.getKey()));
                z.write(e.getValue().getBytes(StandardCharsets.UTF_8));
            }
        }
        return bytes.toByteArray();
    }

    static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private void serve(String version, byte[] pkg, String sha) {
        remote.stubFor(get(urlEqualTo("/pkg.zip")).willReturn(aResponse().withStatus(200).withBody(pkg)));
        remote.stubFor(get(urlEqualTo("/manifest.json")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"version\":\"" + version + "\",\"url\":\"pkg.zip\",\"sha256\":\"" + sha + "\"}")));
    }

    private List<UpdateStream.Event> update(String token) {
        try (UpdateStream st = UpdateStream.post(s.http, s.uri("/api/system/update"), bearer(token))) {
            assertEquals(200, st.status, st.status == 200 ? "" : st.text());
            assertTrue(st.contentType.startsWith("text/event-stream"), st.contentType);
            List<UpdateStream.Event> events = st.all();
            assertFalse(events.isEmpty());
            long last = 0;
            for (UpdateStream.Event e : events) {
                long id = Long.parseLong(e.id());
                assertTrue(id > last, "ids grow: " + events);
                last = id;
            }
            return events;
        }
    }

    private static UpdateStream.Event terminal(List<UpdateStream.Event> events) {
        UpdateStream.Event last = events.getLast();
        assertTrue(last.name().equals("done") || last.name().equals("error"), events.toString());
        return last;
    }

    private void assertNoExit() throws Exception {
        try {
            Integer code = exited.get(1500, TimeUnit.MILLISECONDS);
            throw new AssertionError("the server exited with " + code);
        } catch (TimeoutException expected) {
            // still running
        }
    }

    /** Everything in the runtime folder, as relative paths (links not followed). */
    private List<String> runtimeFiles() throws IOException {
        try (Stream<Path> w = Files.walk(runtime)) {
            return w.map(p -> runtime.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void aNewerPackageIsInstalledCurrentSwitchedAndTheProcessExitsWith42AfterTheStream() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json"));
        byte[] pkg = zip(Map.of(), true);
        serve(newer(), pkg, sha256(pkg));

        List<UpdateStream.Event> events = update(token);
        UpdateStream.Event done = terminal(events);
        assertEquals("done", done.name(), events.toString());
        JsonNode d = done.data();
        assertTrue(d.path("success").asBoolean() && d.path("updated").asBoolean(), d.toString());
        assertTrue(d.path("selfRestarting").asBoolean(), d.toString());
        assertEquals(running, d.path("fromVersion").asText());
        assertEquals(newer(), d.path("toVersion").asText());
        assertEquals("runtime-dir", d.path("installMode").asText());
        List<String> phases = events.stream().filter(e -> e.name().equals("progress"))
                .map(e -> e.data().path("phase").asText()).distinct().toList();
        assertEquals(List.of("checking", "downloading", "verifying", "unpacking", "swapping", "restarting"), phases);
        assertTrue(events.stream().anyMatch(e -> e.name().equals("log")
                && e.data().path("text").asText().contains("matches the manifest")), events.toString());

        assertEquals(42, exited.get(15, TimeUnit.SECONDS));
        assertEquals(Path.of("versions", newer()), Files.readSymbolicLink(runtime.resolve("current")));
        assertEquals("new jar", Files.readString(runtime.resolve("current/workspace-server.jar")));
        assertEquals("a library", Files.readString(runtime.resolve("current/libs/a.jar")));
        // the previous version stays for a roll-back; nothing temporary is left
        assertEquals("old jar", Files.readString(runtime.resolve("versions").resolve(running)
                .resolve("workspace-server.jar")));
        assertTrue(runtimeFiles().stream().noneMatch(f -> f.contains("/.") || f.startsWith(".")), runtimeFiles()
                .toString());

        // the restart is pending: no second update, and a restart answers again without a second exit
        try (UpdateStream again = UpdateStream.post(s.http, s.uri("/api/system/update"), bearer(token))) {
            assertEquals(409, again.status);
            assertTrue(again.text().contains("UPDATE_IN_PROGRESS"));
        }
    }

    @Test
    void aPackageInsideOneFolderIsAcceptedAndOldVersionsBeyondThePreviousArePruned() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json"));
        Path ancient = Files.createDirectories(runtime.resolve("versions/0.0.1"));
        Files.writeString(ancient.resolve("workspace-server.jar"), "ancient");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(bytes)) {
            z.putNextEntry(new ZipEntry("agent-workspace-" + newer() + "/workspace-server.jar"));
            z.write("wrapped jar".getBytes(StandardCharsets.UTF_8));
        }
        byte[] pkg = bytes.toByteArray();
        serve(newer(), pkg, sha256(pkg).toUpperCase(java.util.Locale.ROOT));
        assertEquals("done", terminal(update(token)).name());
        assertEquals(42, exited.get(15, TimeUnit.SECONDS));
        assertEquals("wrapped jar", Files.readString(runtime.resolve("current/workspace-server.jar")));
        assertFalse(Files.exists(ancient));
        assertTrue(Files.exists(runtime.resolve("versions").resolve(running)));
    }

    @Test
    void aVersionThatIsNotNewerEndsWithUpdatedFalseAndNoExit() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json"));
        byte[] pkg = zip(Map.of(), true);
        serve(running, pkg, sha256(pkg));
        List<String> before = runtimeFiles();
        UpdateStream.Event done = terminal(update(token));
        assertEquals("done", done.name());
        assertFalse(done.data().path("updated").asBoolean(true), done.data().toString());
        assertFalse(done.data().path("selfRestarting").asBoolean(true));
        assertEquals(running, done.data().path("toVersion").asText());
        assertNoExit();
        assertEquals(before, runtimeFiles());
        assertEquals(0, remote.findAll(com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor(
                urlEqualTo("/pkg.zip"))).size(), "the package is not downloaded");
        // a finished update that changed nothing does not block the next one
        assertEquals("done", terminal(update(token)).name());
    }

    @Test
    void aWrongChecksumInstallsNothingAndLeavesNothingBehind() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json"));
        byte[] pkg = zip(Map.of(), true);
        serve(newer(), pkg, "0".repeat(64));
        List<String> before = runtimeFiles();
        UpdateStream.Event err = terminal(update(token));
        assertEquals("error", err.name());
        assertEquals("UPDATE_CHECKSUM_MISMATCH", err.data().path("code").asText(), err.data().toString());
        assertNoExit();
        assertEquals(before, runtimeFiles());
        assertEquals(Path.of("versions", running), Files.readSymbolicLink(runtime.resolve("current")));
    }

    @Test
    void badManifestsAreRefusedWithTheirCode() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json"));
        List<String> before = runtimeFiles();
        for (String body : List.of("not json", "[]", "{\"version\":\"1.x\",\"url\":\"pkg.zip\",\"sha256\":\"" + "a".repeat(64)
                + "\"}", "{\"version\":\"9.0.0\",\"url\":\"pkg.zip\"}", "{\"version\":\"9.0.0\",\"url\":\"file:///etc/passwd\","
                + "\"sha256\":\"" + "a".repeat(64) + "\"}")) {
            remote.stubFor(get(urlEqualTo("/manifest.json")).willReturn(aResponse().withStatus(200).withBody(body)));
            UpdateStream.Event err = terminal(update(token));
            assertEquals("error", err.name(), body);
            assertEquals("UPDATE_MANIFEST_INVALID", err.data().path("code").asText(), body + " " + err.data());
        }
        assertNoExit();
        assertEquals(before, runtimeFiles());
    }

    @Test
    void anUnreachableOrFailingSourceIsUpdateSourceUnavailable() throws Exception {
        int closed;
        try (ServerSocket free = new ServerSocket(0)) {
            closed = free.getLocalPort();
        }
        String token = start("runtime-dir", settings(null).withManifestUrl(
                URI.create("http://127.0.0.1:" + closed + "/manifest.json")));
        List<String> before = runtimeFiles();
        UpdateStream.Event err = terminal(update(token));
        assertEquals("UPDATE_SOURCE_UNAVAILABLE", err.data().path("code").asText(), err.data().toString());
        assertNoExit();
        assertEquals(before, runtimeFiles());
    }

    @Test
    void aPackageThatTricklesPastTheTimeoutEndsTheUpdateAndNothingIsInstalled() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json").withTimeout(java.time.Duration.ofSeconds(2)));
        byte[] pkg = zip(Map.of(), true);
        serve(newer(), pkg, "a".repeat(64));
        // the headers come at once, the body over 30 s: only a deadline on the body ends it
        remote.stubFor(get(urlEqualTo("/pkg.zip")).willReturn(aResponse().withStatus(200).withBody(pkg)
                .withChunkedDribbleDelay(30, 30_000)));
        List<String> before = runtimeFiles();
        long t0 = System.nanoTime();
        UpdateStream.Event err = terminal(update(token));
        long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
        assertEquals("UPDATE_SOURCE_UNAVAILABLE", err.data().path("code").asText(), err.data().toString());
        assertTrue(err.data().path("message").asText().contains("took longer"), err.data().toString());
        assertTrue(seconds < 20, "ended by the deadline, not by the source: " + seconds + " s");
        assertNoExit();
        assertEquals(before, runtimeFiles());
    }

    @Test
    void aManifestUrlsQueryIsNotShownInTheStream() throws Exception {
        String token = start("runtime-dir", settings(null).withManifestUrl(
                URI.create(remote.baseUrl() + "/manifest.json?token=s3cr3t-value")));
        remote.stubFor(get(urlEqualTo("/manifest.json?token=s3cr3t-value")).willReturn(aResponse().withStatus(503)));
        List<UpdateStream.Event> events = update(token);
        assertEquals("UPDATE_SOURCE_UNAVAILABLE", terminal(events).data().path("code").asText());
        assertFalse(events.toString().contains("s3cr3t"), events.toString());
    }

    @Test
    void aMissingPackageIsUpdateSourceUnavailable() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json"));
        serve(newer(), zip(Map.of(), true), "a".repeat(64));
        remote.stubFor(get(urlEqualTo("/pkg.zip")).willReturn(aResponse().withStatus(404)));
        List<String> before = runtimeFiles();
        UpdateStream.Event err = terminal(update(token));
        assertEquals("UPDATE_SOURCE_UNAVAILABLE", err.data().path("code").asText(), err.data().toString());
        assertTrue(err.data().path("message").asText().contains("404"));
        assertEquals(before, runtimeFiles());
        assertNoExit();
    }

    @Test
    void anEntryLeavingItsFolderIsRefusedAndNothingIsWrittenOutside() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json"));
        byte[] pkg = zip(Map.of("../../escaped.txt", "x"), true);
        serve(newer(), pkg, sha256(pkg));
        List<String> before = runtimeFiles();
        UpdateStream.Event err = terminal(update(token));
        assertEquals("UPDATE_PACKAGE_INVALID", err.data().path("code").asText(), err.data().toString());
        assertFalse(Files.exists(runtime.resolve("escaped.txt")));
        assertFalse(Files.exists(tmp.resolve("escaped.txt")));
        assertEquals(before, runtimeFiles());
        assertNoExit();
    }

    @Test
    void aPackageWithoutTheServerJarIsRefused() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json"));
        byte[] pkg = zip(Map.of("README", "no jar here"), false);
        serve(newer(), pkg, sha256(pkg));
        List<String> before = runtimeFiles();
        assertEquals("UPDATE_PACKAGE_INVALID", terminal(update(token)).data().path("code").asText());
        assertEquals(before, runtimeFiles());
    }

    @Test
    void aPackageOverTheLimitIsRefusedWhileDownloading() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json").withMaxPackageBytes(2048));
        byte[] big = new byte[64 * 1024];
        new java.util.Random(1).nextBytes(big);
        byte[] pkg = zip(Map.of("random.bin", HexFormat.of().formatHex(big)), true);
        serve(newer(), pkg, sha256(pkg));
        List<String> before = runtimeFiles();
        UpdateStream.Event err = terminal(update(token));
        assertEquals("UPDATE_PACKAGE_TOO_LARGE", err.data().path("code").asText(), err.data().toString());
        assertEquals(before, runtimeFiles());
        assertNoExit();
    }

    /** The manifest served with the base64 Ed25519 signature of its bytes by {@code signer} at {@code .sig}. */
    private void serveSigned(String version, byte[] pkg, java.security.PrivateKey signer) throws Exception {
        String manifest = "{\"version\":\"" + version + "\",\"url\":\"pkg.zip\",\"sha256\":\"" + sha256(pkg) + "\"}";
        remote.stubFor(get(urlEqualTo("/pkg.zip")).willReturn(aResponse().withStatus(200).withBody(pkg)));
        remote.stubFor(get(urlEqualTo("/manifest.json")).willReturn(aResponse().withStatus(200).withBody(manifest)));
        java.security.Signature sig = java.security.Signature.getInstance("Ed25519");
        sig.initSign(signer);
        sig.update(manifest.getBytes(StandardCharsets.UTF_8));
        remote.stubFor(get(urlEqualTo("/manifest.json.sig")).willReturn(aResponse().withStatus(200)
                .withBody(java.util.Base64.getEncoder().encodeToString(sig.sign()) + "\n")));
    }

    @Test
    void withAnUpdateKeyOnlyAManifestSignedByItIsInstalled() throws Exception {
        java.security.KeyPairGenerator gen = java.security.KeyPairGenerator.getInstance("Ed25519");
        java.security.KeyPair ours = gen.generateKeyPair();
        java.security.KeyPair theirs = gen.generateKeyPair();
        // the key as an operator passes it: base64 of the DER SubjectPublicKeyInfo
        String configured = java.util.Base64.getEncoder().encodeToString(ours.getPublic().getEncoded());
        String token = start("runtime-dir", settings("/manifest.json")
                .withPublicKey(UpdateSettings.parsePublicKey(configured)));
        byte[] pkg = zip(Map.of(), true);
        List<String> before = runtimeFiles();

        serveSigned(newer(), pkg, theirs.getPrivate());
        UpdateStream.Event err = terminal(update(token));
        assertEquals("UPDATE_SIGNATURE_INVALID", err.data().path("code").asText(), err.data().toString());
        remote.removeStub(remote.getStubMappings().stream()
                .filter(m -> "/manifest.json.sig".equals(m.getRequest().getUrl())).findFirst().orElseThrow());
        err = terminal(update(token));
        assertEquals("UPDATE_SIGNATURE_INVALID", err.data().path("code").asText(), "no signature: " + err.data());
        assertEquals(before, runtimeFiles());
        assertNoExit();

        serveSigned(newer(), pkg, ours.getPrivate());
        List<UpdateStream.Event> events = update(token);
        assertEquals("done", terminal(events).name(), events.toString());
        assertTrue(events.stream().anyMatch(e -> e.data().path("text").asText().equals("manifest signature verified")));
        assertEquals(42, exited.get(15, TimeUnit.SECONDS));
        assertEquals("new jar", Files.readString(runtime.resolve("current/workspace-server.jar")));
    }

    @Test
    void withoutAnUpdateUrlTheUpdateIsNotConfigured() throws Exception {
        String token = start("runtime-dir", settings(null));
        UpdateStream.Event err = terminal(update(token));
        assertEquals("UPDATE_NOT_CONFIGURED", err.data().path("code").asText());
        assertTrue(err.data().path("message").asText().contains("--update-url"));
    }

    @Test
    void dockerAndNpmInstallsAreNotUpdatedFromInside() throws Exception {
        for (String mode : List.of("docker", "npm-global")) {
            String token = start(mode, settings("/manifest.json"));
            UpdateStream.Event err = terminal(update(token));
            assertEquals("error", err.name());
            assertEquals("UPDATE_NOT_SUPPORTED", err.data().path("code").asText(), err.data().toString());
            assertNoExit();
            s.close();
            s = null;
        }
    }

    @Test
    void oneUpdateAtATimeAndNoRestartDuringOne() throws Exception {
        String token = start("runtime-dir", settings("/manifest.json"));
        byte[] pkg = zip(Map.of(), true);
        serve(running, pkg, sha256(pkg));
        remote.stubFor(get(urlEqualTo("/manifest.json")).willReturn(aResponse().withStatus(200)
                .withFixedDelay(3000).withBody("{\"version\":\"" + running + "\",\"url\":\"pkg.zip\",\"sha256\":\""
                        + sha256(pkg) + "\"}")));
        try (UpdateStream first = UpdateStream.post(s.http, s.uri("/api/system/update"), bearer(token))) {
            assertEquals(200, first.status);
            try (UpdateStream second = UpdateStream.post(s.http, s.uri("/api/system/update"), bearer(token))) {
                assertEquals(409, second.status);
                JsonNode body = TestServer.JSON.readTree(second.text());
                assertEquals("UPDATE_IN_PROGRESS", body.path("error").path("code").asText());
            }
            expect(s.post("/api/system/restart", null, bearer(token)), 409, "UPDATE_IN_PROGRESS");
            assertEquals("done", first.all().getLast().name());
        }
        assertNoExit();
    }

    @Test
    void restartAnswersThenExitsWith42() throws Exception {
        String token = start("runtime-dir", settings(null));
        java.time.Instant started = java.time.Instant.parse(expect(s.get("/health"), 200, null).path("startedAt").asText());
        assertFalse(started.isAfter(java.time.Instant.now()), started.toString());
        JsonNode body = expect(s.post("/api/system/restart", null, bearer(token)), 200, null);
        assertTrue(body.path("success").asBoolean());
        assertEquals(42, body.path("exitCode").asInt());
        assertEquals(42, exited.get(10, TimeUnit.SECONDS));
        // the restart is pending: updates are refused until the process is gone
        try (UpdateStream again = UpdateStream.post(s.http, s.uri("/api/system/update"), bearer(token))) {
            assertEquals(409, again.status);
        }
        // the next start (the launcher's) reports a later startedAt, which is how a client tells a restart happened
        s.close();
        start("runtime-dir", settings(null));
        java.time.Instant again = java.time.Instant.parse(expect(s.get("/health"), 200, null).path("startedAt").asText());
        assertTrue(again.isAfter(started), started + " then " + again);
    }

    @Test
    void onlyAdministratorsMayUpdateOrRestartAndOnlyUpdateTakesAKey() throws Exception {
        String admin = start("runtime-dir", settings(null));
        for (String path : List.of("/api/system/update", "/api/system/restart")) {
            expect(s.post(path, null), 401, "AUTH_REQUIRED");
            String weak = s.createKey(admin, "weak", List.of("tasks:write", "projects:write"))[1];
            expect(s.post(path, null, "X-API-Key", weak), 403,
                    path.endsWith("restart") ? "SESSION_REQUIRED" : "INSUFFICIENT_SCOPE");
            // a cookie session without a same-origin Origin is refused (CSRF)
            expect(s.post(path, null, "Cookie", "token=" + admin), 403, "ORIGIN_REJECTED");
        }
        // a non-administrator, signed in or with a key holding system:update
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201,
                null);
        String bob = s.login("bob", "bob-password-1");
        String bobKey = s.createKey(bob, "bob", List.of("system:update"))[1];
        for (String path : List.of("/api/system/update", "/api/system/restart")) {
            expect(s.post(path, null, bearer(bob)), 403, "ADMIN_REQUIRED");
            expect(s.post(path, null, "X-API-Key", bobKey), 403,
                    path.endsWith("restart") ? "SESSION_REQUIRED" : "ADMIN_REQUIRED");
        }
        assertNoExit();
        // an administrator's key with system:update may update, but not restart
        String key = s.createKey(admin, "deploy", List.of("system:update"))[1];
        expect(s.post("/api/system/restart", null, "X-API-Key", key), 403, "SESSION_REQUIRED");
        try (UpdateStream st = UpdateStream.post(s.http, s.uri("/api/system/update"), "X-API-Key", key)) {
            assertEquals(200, st.status);
            assertEquals("UPDATE_NOT_CONFIGURED", st.all().getLast().data().path("code").asText());
        }
        // a cookie session with its own origin, as a browser sends it
        JsonNode body = expect(s.post("/api/system/restart", null, "Cookie", "token=" + admin, "Origin", s.origin()),
                200, null);
        assertEquals(42, body.path("exitCode").asInt());
        assertEquals(42, exited.get(10, TimeUnit.SECONDS));
    }
}
