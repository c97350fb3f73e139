package org.agentworkspace.server.network;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.upnp.FakeUpnpGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network family through the running server: endpoints, a public tunnel through fake {@code cloudflared} and
 * {@code ngrok} programs (origin allowed exactly while open, process tree gone after close), and UPnP against a fake
 * gateway (mapping made and removed, conflicts, hostile descriptions, no gateway).
 */
class NetworkRoutesTest {
    private static final String TUNNEL_HOST = "fake-tunnel-4242.trycloudflare.com";

    @TempDir
    Path tmp;

    private Path tool(String name, String body) throws IOException {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path file = bin.resolve(name);
        Files.writeString(file, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return bin;
    }

    private TestServer server(Path bin, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(extra);
        env.put("PATH", bin == null ? tmp.resolve("empty-bin").toString() : bin.toString());
        return TestServer.start(c -> c, env);
    }

    @Test
    void endpointsNameTheBoundAddress() {
        try (TestServer s = server(null, Map.of())) {
            String admin = s.registerAdmin();
            JsonNode e = expect(s.get("/api/network/endpoints", bearer(admin)), 200, null);
            int port = e.path("port").asInt();
            assertEquals(s.uri("/").getPort(), port);
            assertEquals(List.of("http://127.0.0.1:" + port), List.of(e.path("endpoints").get(0).asText()));
            assertEquals(1, e.path("endpoints").size(), "bound to loopback: exactly that address");
        }
    }

    @Test
    void aCloudflaredTunnelOpensItsOriginWhileOpenAndLeavesNoProcess() throws Exception {
        Path pids = tmp.resolve("pids");
        Path argv = tmp.resolve("argv");
        Path bin = tool("cloudflared", """
                printf '%s\\n' "$@" > '""" + argv + """
                '
                echo "2026-11-22T00:00:00Z INF Requesting new quick Tunnel on trycloudflare.com..." >&2
                /bin/sleep 300 &
                echo "$$ $!" > '""" + pids + """
                '
                echo "2026-11-22T00:00:01Z INF |  https://""" + TUNNEL_HOST + """
                  |" >&2
                wait
                """);
        try (TestServer s = server(bin, Map.of())) {
            String admin = s.registerAdmin();
            assertFalse(expect(s.get("/api/network/external", bearer(admin)), 200, null).path("tunnel")
                    .path("active").asBoolean());
            assertEquals(403, rawPost(s, TUNNEL_HOST), "the tunnel host is refused before the tunnel opens");

            JsonNode opened = expect(s.post("/api/network/tunnel", null, bearer(admin)), 200, null);
            assertEquals("https://" + TUNNEL_HOST, opened.path("url").asText());
            assertEquals("cloudflared", opened.path("provider").asText());
            int port = s.uri("/").getPort();
            assertEquals(List.of("tunnel", "--no-autoupdate", "--url", "http://127.0.0.1:" + port),
                    Files.readAllLines(argv));
            JsonNode snap = expect(s.get("/api/network/external", bearer(admin)), 200, null).path("tunnel");
            assertTrue(snap.path("active").asBoolean());
            assertEquals("https://" + TUNNEL_HOST, snap.path("url").asText());
            // a second open returns the same tunnel
            assertEquals(opened.path("url"), expect(s.post("/api/network/tunnel", null, bearer(admin)), 200, null)
                    .path("url"));

            // through the tunnel: Host and Origin are the tunnel's, and a session's change is accepted
            assertEquals(401, rawPost(s, TUNNEL_HOST), "allowed host and origin (401: no credential sent)");

            expect(s.delete("/api/network/tunnel", null, bearer(admin)), 200, null);
            assertFalse(expect(s.get("/api/network/external", bearer(admin)), 200, null).path("tunnel")
                    .path("active").asBoolean());
            assertEquals(403, rawPost(s, TUNNEL_HOST), "the tunnel host is refused again once closed");
            for (String pid : Files.readString(pids).strip().split(" ")) {
                long p = Long.parseLong(pid);
                assertFalse(ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false),
                        "process " + p + " of the tunnel tool is still alive");
            }
            expect(s.delete("/api/network/tunnel", null, bearer(admin)), 200, null);
        }
    }

    @Test
    void ngrokIsUsedWhenCloudflaredIsMissingAndAToolThatDiesIsReported() throws Exception {
        Path bin = tool("ngrok", """
                echo '{"lvl":"info","msg":"starting web service","obj":"web","addr":"127.0.0.1:4040"}'
                echo '{"lvl":"info","msg":"started tunnel","obj":"tunnels","name":"command_line","url":"https://abc123.ngrok-free.app"}'
                exec /bin/sleep 300
                """);
        try (TestServer s = server(bin, Map.of())) {
            String admin = s.registerAdmin();
            JsonNode opened = expect(s.post("/api/network/tunnel", null, bearer(admin)), 200, null);
            assertEquals("ngrok", opened.path("provider").asText());
            assertEquals("https://abc123.ngrok-free.app", opened.path("url").asText());
            expect(s.delete("/api/network/tunnel", null, bearer(admin)), 200, null);
        }
        Path failing = tmp.resolve("failing");
        Files.createDirectories(failing);
        Path tool = failing.resolve("cloudflared");
        Files.writeString(tool, "#!/bin/sh\necho 'ERR failed to request quick Tunnel: no network' >&2\nexit 1\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwx------"));
        try (TestServer s = server(failing, Map.of("AW_TUNNEL_START_SECONDS", "20"))) {
            String admin = s.registerAdmin();
            JsonNode err = expect(s.post("/api/network/tunnel", null, bearer(admin)), 503, "TUNNEL_FAILED");
            assertTrue(err.path("error").path("message").asText().contains("no network"), err.toString());
        }
        try (TestServer s = server(null, Map.of())) {
            String admin = s.registerAdmin();
            expect(s.post("/api/network/tunnel", null, bearer(admin)), 503, "TUNNEL_UNAVAILABLE");
        }
    }

    @Test
    void upnpMapsThePortAndRemovesItAgain() throws Exception {
        try (FakeUpnpGateway gw = new FakeUpnpGateway();
             TestServer s = server(null, Map.of("AW_UPNP_DISCOVERY", gw.discoveryAddress()))) {
            String admin = s.registerAdmin();
            int port = s.uri("/").getPort();
            JsonNode mapped = expect(s.post("/api/network/upnp", null, bearer(admin)), 200, null).path("upnp");
            assertTrue(mapped.path("active").asBoolean());
            assertEquals(FakeUpnpGateway.EXTERNAL_IP, mapped.path("externalIp").asText());
            assertEquals(port, mapped.path("mappedPort").asInt());
            FakeUpnpGateway.Mapping m = gw.mappings().get(port);
            assertEquals(new FakeUpnpGateway.Mapping(port, "TCP", "127.0.0.1", port, "Agent Workspace"), m);
            assertEquals(mapped, expect(s.get("/api/network/external", bearer(admin)), 200, null).path("upnp"));
            // again: already present, nothing new sent
            int before = gw.actions().size();
            expect(s.post("/api/network/upnp", null, bearer(admin)), 200, null);
            assertEquals(before, gw.actions().size());

            JsonNode removed = expect(s.delete("/api/network/upnp", null, bearer(admin)), 200, null).path("upnp");
            assertFalse(removed.path("active").asBoolean());
            assertTrue(gw.mappings().isEmpty());
            expect(s.delete("/api/network/upnp", null, bearer(admin)), 200, null);
        }
    }

    @Test
    void theServerRemovesItsMappingWhenItStops() throws Exception {
        try (FakeUpnpGateway gw = new FakeUpnpGateway()) {
            try (TestServer s = server(null, Map.of("AW_UPNP_DISCOVERY", gw.discoveryAddress()))) {
                String admin = s.registerAdmin();
                expect(s.post("/api/network/upnp", null, bearer(admin)), 200, null);
                assertEquals(1, gw.mappings().size());
            }
            assertTrue(gw.mappings().isEmpty(), "the mapping outlived the server");
        }
    }

    @Test
    void conflictsHostileGatewaysAndSilenceAreClearErrors() throws Exception {
        Path secret = Files.writeString(tmp.resolve("secret.txt"), "TOP-SECRET-CANARY");
        try (FakeUpnpGateway gw = new FakeUpnpGateway(FakeUpnpGateway.Mode.CONFLICT, null);
             TestServer s = server(null, Map.of("AW_UPNP_DISCOVERY", gw.discoveryAddress()))) {
            String admin = s.registerAdmin();
            expect(s.post("/api/network/upnp", null, bearer(admin)), 409, "UPNP_CONFLICT");
            assertFalse(expect(s.get("/api/network/external", bearer(admin)), 200, null).path("upnp")
                    .path("active").asBoolean());
        }
        for (FakeUpnpGateway.Mode mode : List.of(FakeUpnpGateway.Mode.XXE, FakeUpnpGateway.Mode.FOREIGN_LOCATION)) {
            try (FakeUpnpGateway gw = new FakeUpnpGateway(mode, secret.toString());
                 TestServer s = server(null, Map.of("AW_UPNP_DISCOVERY", gw.discoveryAddress()))) {
                String admin = s.registerAdmin();
                JsonNode err = expect(s.post("/api/network/upnp", null, bearer(admin)), 503, "UPNP_UNAVAILABLE");
                assertFalse(err.toString().contains("TOP-SECRET-CANARY"), mode + ": " + err);
                assertTrue(gw.actions().isEmpty(), mode + ": no action may be sent to such a gateway");
            }
        }
        try (java.net.DatagramSocket silent = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress());
             TestServer s = server(null, Map.of("AW_UPNP_DISCOVERY", "127.0.0.1:" + silent.getLocalPort()))) {
            String admin = s.registerAdmin();
            long t0 = System.nanoTime();
            expect(s.post("/api/network/upnp", null, bearer(admin)), 503, "UPNP_UNAVAILABLE");
            assertTrue(Duration.ofNanos(System.nanoTime() - t0).toSeconds() < 10, "discovery is bounded");
        }
    }

    @Test
    void onlyAnAdministratorsSessionMayExpose() {
        try (TestServer s = server(null, Map.of())) {
            String admin = s.registerAdmin();
            String key = s.createKey(admin, "k", null)[1];
            expect(s.post("/api/users", Map.of("username", "member", "password", "member-password-1"),
                    bearer(admin)), 201, null);
            String member = s.login("member", "member-password-1");
            for (String[] route : new String[][] {{"GET", "/api/network/endpoints"}, {"GET", "/api/network/external"},
                    {"POST", "/api/network/upnp"}, {"DELETE", "/api/network/upnp"}, {"POST", "/api/network/tunnel"},
                    {"DELETE", "/api/network/tunnel"}}) {
                expect(s.send(route[0], route[1], null, bearer(key)), 403, "SESSION_REQUIRED");
                expect(s.send(route[0], route[1], null, bearer(member)), 403, "ADMIN_REQUIRED");
                expect(s.send(route[0], route[1], null), 401, "AUTH_REQUIRED");
            }
        }
    }

    /** A POST as a browser behind the tunnel would send it: the tunnel's Host and Origin, no credential. */
    private static int rawPost(TestServer s, String host) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", s.uri("/").getPort())) {
            socket.setSoTimeout(10_000);
            String req = "POST /api/settings/api-keys HTTP/1.1\r\nHost: " + host + "\r\nOrigin: https://" + host
                    + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
            OutputStream out = socket.getOutputStream();
            out.write(req.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(status.substring(9, 12));
        }
    }
}
