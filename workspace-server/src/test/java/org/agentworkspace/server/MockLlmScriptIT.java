package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/mock-llm.sh}, the README's first-run command for the mock LLM, run exactly as written (Failsafe:
 * after the reactor packaged the testkit's runner jar, which the script then uses as it is): it serves
 * {@code /__mock/health}, answers an Anthropic Messages request and records it, with the key redacted, in its log.
 */
class MockLlmScriptIT {
    @TempDir
    Path tmp;

    @Test
    void theMockLlmCommandOfTheReadmeServesAndRecords() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path log = tmp.resolve("requests.jsonl");
        Path out = tmp.resolve("out");
        Process p = new ProcessBuilder(List.of("bash", "scripts/mock-llm.sh", "--port", String.valueOf(port), "--log",
                log.toString())).directory(Path.of("..").toAbsolutePath().normalize().toFile())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            String base = "http://127.0.0.1:" + port;
            HttpResponse<String> health = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && p.isAlive()) {
                try {
                    health = http.send(HttpRequest.newBuilder(URI.create(base + "/__mock/health"))
                            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                    break;
                } catch (java.io.IOException e) {
                    Thread.sleep(200);
                }
            }
            assertTrue(health != null && health.statusCode() == 200, () -> "no answer; output: " + read(out));
            assertEquals("ok", TestServer.JSON.readTree(health.body()).path("status").asText());

            HttpResponse<String> reply = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/messages"))
                    .header("content-type", "application/json").header("x-api-key", "sk-first-run-0123")
                    .header("anthropic-version", "2023-06-01").timeout(Duration.ofSeconds(10))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":64,"
                            + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, reply.statusCode(), reply.body());
            JsonNode message = TestServer.JSON.readTree(reply.body());
            assertEquals("message", message.path("type").asText(), reply.body());
            assertFalse(message.path("content").path(0).path("text").asText().isEmpty(), reply.body());

            String recorded = Files.readString(log);
            assertTrue(recorded.contains("/v1/messages"), recorded);
            assertFalse(recorded.contains("sk-first-run-0123"), "the key is redacted in the log: " + recorded);
        } finally {
            p.destroy(); // the script execs java: this is the mock itself
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }
}
