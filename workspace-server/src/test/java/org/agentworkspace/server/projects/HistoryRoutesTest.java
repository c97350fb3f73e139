package org.agentworkspace.server.projects;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.realcli.Recordings;
import org.junit.jupiter.api.Test;

/**
 * Projects, sessions, messages, rename, delete, search and the index status over HTTP, against a HOME seeded with
 * the real CLI recordings (their recorded working directory moved to a temp folder).
 */
class HistoryRoutesTest {

    @Test
    void historyThroughTheRunningServer() throws Exception {
        Path dir = Files.createTempDirectory("aw-history-routes-").toRealPath();
        Path home = Files.createDirectories(dir.resolve("home"));
        Path project = Files.createDirectories(dir.resolve("work/demo"));
        for (String provider : List.of("claude", "codex", "gemini", "qwen")) {
            for (String scenario : List.of("plain", "tool-write")) {
                for (Path f : Recordings.copyHome(provider, scenario, home)) {
                    String text = Files.readString(f, StandardCharsets.UTF_8);
                    Files.writeString(f, text.replace(Recordings.PROJECT_PLACEHOLDER, project.toString()));
                }
            }
        }
        Recordings.copyHome("opencode", "plain", home);
        String name = ProjectRegistry.nameFor(project);
        try (TestServer s = TestServer.start(c -> c, Map.of("HOME", home.toString()))) {
            String admin = s.registerAdmin();
            String reader = s.createKey(admin, "read", List.of("projects:read"))[1];
            JsonNode status = null;
            long end = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < end) {
                status = expect(s.get("/api/history/index", "X-API-Key", reader), 200, null);
                if (status.path("state").asText().equals("ready")) {
                    break;
                }
                Thread.sleep(20);
            }
            assertEquals("ready", status.path("state").asText(), status.toString());
            assertEquals(status.path("sessions").asInt(), status.path("sessionsIndexed").asInt());
            assertTrue(status.path("messages").asLong() > 0);
            assertFalse(status.path("listedAt").isNull());
            assertFalse(status.path("readyAt").isNull());
            assertEquals(0, status.path("filesPending").asInt());
            assertTrue(status.has("corruptLines") && status.has("startedAt"));

            JsonNode projects = expect(s.get("/api/projects", "X-API-Key", reader), 200, null);
            JsonNode p = null;
            for (JsonNode x : projects) {
                if (x.path("name").asText().equals(name)) {
                    p = x;
                }
            }
            assertTrue(p != null, projects.toString());
            assertEquals(project.toString(), p.path("path").asText());
            assertEquals("demo", p.path("displayName").asText());
            assertFalse(p.path("registered").asBoolean());
            Set<String> providers = new HashSet<>();
            p.path("sessions").forEach(x -> providers.add(x.path("provider").asText()));
            assertEquals(Set.of("claude", "codex", "gemini", "qwen"), providers);

            // quick-start of the same folder merges into the same entry
            JsonNode registered = expect(s.post("/api/projects/quick-start", Map.of("path", project.toString()),
                    bearer(admin)), 200, null);
            assertEquals(name, registered.path("name").asText());
            assertTrue(registered.path("registered").asBoolean());
            assertEquals(p.path("sessionCount"), registered.path("sessionCount"));

            JsonNode sessions = expect(s.get("/api/projects/" + name + "/sessions", "X-API-Key", reader), 200, null);
            assertEquals(p.path("sessionCount").asInt(), sessions.size());
            String sid = Recordings.meta("claude", "tool-write").path("sessionId").asText();
            JsonNode claude = null;
            for (JsonNode x : sessions) {
                if (x.path("id").asText().equals(sid)) {
                    claude = x;
                }
            }
            assertTrue(claude != null);
            int total = claude.path("messageCount").asInt();
            assertTrue(total >= 3);

            String base = "/api/sessions/" + sid + "/messages?projectName=" + name;
            JsonNode newest = expect(s.get(base + "&limit=2", "X-API-Key", reader), 200, null);
            assertEquals(total, newest.path("total").asInt());
            assertTrue(newest.path("hasMore").asBoolean());
            assertEquals(2, newest.path("messages").size());
            JsonNode oldest = expect(s.get(base + "&limit=2&offset=" + (total - 2), "X-API-Key", reader), 200, null);
            assertFalse(oldest.path("hasMore").asBoolean());
            JsonNode first = oldest.path("messages").get(0);
            assertEquals("user", first.path("role").asText());
            assertEquals("text", first.path("kind").asText());
            assertEquals("Create the file [[mock:tool:write_file path=hello.txt content=hello-from-mock]]",
                    first.path("text").asText());
            boolean sawCall = false;
            JsonNode all = expect(s.get(base + "&limit=1000", "X-API-Key", reader), 200, null);
            for (JsonNode m : all.path("messages")) {
                if (m.path("kind").asText().equals("tool_call")) {
                    sawCall = true;
                    assertEquals("assistant", m.path("role").asText());
                    assertFalse(m.path("toolCallId").isNull());
                    assertFalse(m.path("toolInputJson").isNull());
                }
            }
            assertTrue(sawCall);
            expect(s.get("/api/sessions/nope/messages?projectName=" + name, "X-API-Key", reader), 404,
                    "SESSION_NOT_FOUND");
            expect(s.get("/api/sessions/" + sid + "/messages", "X-API-Key", reader), 400, "VALIDATION_FAILED");
            expect(s.get(base + "&limit=0", "X-API-Key", reader), 400, "VALIDATION_FAILED");
            expect(s.get(base + "&provider=nope", "X-API-Key", reader), 400, "UNKNOWN_PROVIDER");

            // search
            JsonNode found = expect(s.get("/api/search/conversations?q=hello&limit=5", "X-API-Key", reader), 200,
                    null);
            assertTrue(found.path("total").asInt() > 0);
            assertTrue(found.path("results").size() <= 5);
            JsonNode hit = found.path("results").get(0);
            for (String f : List.of("provider", "sessionId", "projectName", "sessionTitle", "messageId", "role",
                    "timestamp", "snippet")) {
                assertTrue(hit.has(f), f);
            }
            assertTrue(hit.path("snippet").asText().toLowerCase().contains("«hello»"));
            JsonNode onlyCodex = expect(s.get("/api/search/conversations?q=hello&provider=codex", "X-API-Key",
                    reader), 200, null);
            onlyCodex.path("results").forEach(r -> assertEquals("codex", r.path("provider").asText()));
            assertEquals(0, expect(s.get("/api/search/conversations?q=zzqqabsent", "X-API-Key", reader), 200, null)
                    .path("total").asInt());
            expect(s.get("/api/search/conversations?q=%21%21", "X-API-Key", reader), 400, "INVALID_QUERY");
            expect(s.get("/api/search/conversations", "X-API-Key", reader), 400, "INVALID_QUERY");

            // rename a session: the read-only key may not, the admin may; the title sticks
            expect(s.put("/api/sessions/" + sid + "/rename", Map.of("title", "x"), "X-API-Key", reader), 403,
                    "INSUFFICIENT_SCOPE");
            JsonNode renamed = expect(s.put("/api/sessions/" + sid + "/rename", Map.of("title", "Renamed chat"),
                    bearer(admin)), 200, null);
            assertEquals("Renamed chat", renamed.path("title").asText());
            assertEquals("claude", renamed.path("provider").asText());
            JsonNode after = expect(s.get("/api/projects/" + name + "/sessions", "X-API-Key", reader), 200, null);
            boolean seen = false;
            for (JsonNode x : after) {
                seen |= x.path("id").asText().equals(sid) && x.path("title").asText().equals("Renamed chat");
            }
            assertTrue(seen);
            expect(s.put("/api/sessions/nope/rename", Map.of("title", "x"), bearer(admin)), 404, "SESSION_NOT_FOUND");

            // an appended line shows up in the messages, also in a page served before (pages are cached as bytes
            // while the index stands still)
            JsonNode before = expect(s.get(base + "&limit=1", "X-API-Key", reader), 200, null);
            assertEquals(before, expect(s.get(base + "&limit=1", "X-API-Key", reader), 200, null));
            assertFalse(before.path("messages").get(0).path("text").asText().equals("appended over http"));
            Path file = Files.list(home.resolve(".claude/projects")).flatMap(d -> {
                try {
                    return Files.list(d);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).filter(f -> f.getFileName().toString().equals(sid + ".jsonl")).findFirst().orElseThrow();
            Files.writeString(file, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"appended over "
                    + "http\"},\"uuid\":\"http-1\",\"timestamp\":\"2026-11-22T03:00:00.000Z\",\"cwd\":\"" + project
                    + "\",\"sessionId\":\"" + sid + "\"}\n", StandardOpenOption.APPEND);
            long until = System.nanoTime() + 5_000_000_000L;
            String last = "";
            while (System.nanoTime() < until && !last.equals("appended over http")) {
                JsonNode page = expect(s.get(base + "&limit=1", "X-API-Key", reader), 200, null);
                last = page.path("messages").get(0).path("text").asText();
                Thread.sleep(20);
            }
            assertEquals("appended over http", last);

            // delete: opencode refuses (shared database), claude removes the file
            String oc = Recordings.meta("opencode", "plain").path("sessionId").asText();
            String ocProject = ProjectRegistry.nameFor(Path.of(Recordings.PROJECT_PLACEHOLDER));
            expect(s.delete("/api/projects/" + ocProject + "/sessions/" + oc, null, bearer(admin)), 409,
                    "SESSION_DELETE_UNSUPPORTED");
            expect(s.delete("/api/projects/" + name + "/sessions/" + sid, null, "X-API-Key", reader), 403,
                    "INSUFFICIENT_SCOPE");
            expect(s.delete("/api/projects/" + name + "/sessions/" + sid + "?provider=claude", null, bearer(admin)),
                    200, null);
            assertFalse(Files.exists(file));
            expect(s.get(base + "&limit=1", "X-API-Key", reader), 404, "SESSION_NOT_FOUND");
            expect(s.delete("/api/projects/" + name + "/sessions/" + sid, null, bearer(admin)), 404,
                    "SESSION_NOT_FOUND");
            expect(s.get("/api/projects/unknown-00000000/sessions", "X-API-Key", reader), 404, "PROJECT_NOT_FOUND");

            // a history-only project can be renamed and removed from the list
            JsonNode again = expect(s.put("/api/projects/" + ocProject + "/rename", Map.of("displayName", "OC"),
                    bearer(admin)), 200, null);
            assertEquals("OC", again.path("project").path("displayName").asText());
            expect(s.delete("/api/projects/" + ocProject, null, bearer(admin)), 200, null);
            for (JsonNode x : expect(s.get("/api/projects", bearer(admin)), 200, null)) {
                assertFalse(x.path("name").asText().equals(ocProject));
            }
            assertTrue(Files.exists(home.resolve(".local/share/opencode/opencode.db")), "files untouched");
        }
    }
}
