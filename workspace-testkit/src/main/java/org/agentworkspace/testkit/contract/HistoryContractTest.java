package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import org.agentworkspace.testkit.historygen.HistoryGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Projects, sessions and search over the CLIs' history (the history index). Against any service: every route needs
 * a credential and the {@code projects:*} scopes, unknown projects and sessions give 404, a search without a query
 * 400, the index status has its shape. With a local service whose history home is known
 * ({@link ContractHost#assumeHistoryHome}): a small history seeded under a unique project path (a Claude, a Codex
 * and a Gemini session written in the CLIs' formats by the testkit's generator) is listed with its project and
 * titles, messages page from both ends, search finds a session's word and not an absent one (and honours the
 * provider filter), a line appended to a session shows within a second, a session can be renamed and deleted, and
 * the project goes through quick-start → listed → rename → delete. The seeded files are removed afterwards.
 */
@Tag("contract")
class HistoryContractTest extends ProjectsFixture {
    private static final String MISSING_PROJECT = "contract-missing-00000000";
    private static final Duration LISTED_WITHIN = Duration.ofSeconds(30);

    private final List<Path> seeded = new ArrayList<>();
    private final List<Long> keys = new ArrayList<>();

    @BeforeAll
    void requireIndex(ContractClient client, ContractHost host) {
        Served.require(client.get("/api/history/index").as(session).send(), host, "history index");
    }

    @AfterEach
    void cleanUp(ContractClient client) throws IOException {
        for (long id : keys) {
            client.delete("/api/settings/api-keys/" + id).as(session).send().expectStatus(200, 404);
        }
        keys.clear();
        for (Path p : seeded) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> s = Files.walk(p)) {
                    for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(f);
                    }
                }
            } else {
                Files.deleteIfExists(p);
            }
        }
        seeded.clear();
    }

    private Credential key(ContractClient client, String... scopes) {
        JsonNode key = client.post("/api/settings/api-keys").as(session)
                .json(ContractClient.body("name", Names.unique("history"), "scopes", List.of(scopes))).send()
                .expectStatus(201).json();
        keys.add(key.path("id").asLong());
        return Credential.apiKeyHeader(key.path("api_key").asText());
    }

    @Test
    void everyRouteNeedsACredential(ContractClient client) {
        for (String path : List.of("/api/projects", "/api/projects/" + MISSING_PROJECT + "/sessions",
                "/api/sessions/s-1/messages?projectName=" + MISSING_PROJECT, "/api/search/conversations?q=word",
                "/api/history/index")) {
            client.get(path).send().expectError(401, "AUTH_REQUIRED");
        }
        client.delete("/api/projects/" + MISSING_PROJECT + "/sessions/s-1").send().expectError(401, "AUTH_REQUIRED");
        client.put("/api/sessions/s-1/rename").json(ContractClient.body("title", "x")).send()
                .expectError(401, "AUTH_REQUIRED");
    }

    @Test
    void keysNeedTheProjectScopes(ContractClient client) {
        Credential tasks = key(client, "tasks:read");
        for (String path : List.of("/api/projects", "/api/projects/" + MISSING_PROJECT + "/sessions",
                "/api/sessions/s-1/messages?projectName=" + MISSING_PROJECT, "/api/search/conversations?q=word",
                "/api/history/index")) {
            client.get(path).as(tasks).send().expectError(403, "INSUFFICIENT_SCOPE");
        }
        Credential reader = key(client, "projects:read");
        client.get("/api/search/conversations?q=word").as(reader).send().expectStatus(200);
        client.get("/api/history/index").as(reader).send().expectStatus(200);
        client.delete("/api/projects/" + MISSING_PROJECT + "/sessions/s-1").as(reader).send()
                .expectError(403, "INSUFFICIENT_SCOPE");
        client.put("/api/sessions/s-1/rename").as(reader).json(ContractClient.body("title", "x")).send()
                .expectError(403, "INSUFFICIENT_SCOPE");
    }

    @Test
    void unknownProjectsAndSessionsAreNotFoundAndSearchNeedsAQuery(ContractClient client) {
        client.get("/api/projects/" + MISSING_PROJECT + "/sessions").as(session).send()
                .expectError(404, "PROJECT_NOT_FOUND");
        String name = projects.quickStart(Names.serverTempFolder("history-empty")).path("name").asText();
        assertEquals(0, client.get("/api/projects/" + name + "/sessions").as(session).send().expectStatus(200).json()
                .size());
        client.get("/api/sessions/contract-no-such-session/messages?projectName=" + name).as(session).send()
                .expectError(404, "SESSION_NOT_FOUND");
        client.delete("/api/projects/" + name + "/sessions/contract-no-such-session").as(session).send()
                .expectError(404, "SESSION_NOT_FOUND");
        client.get("/api/sessions/contract-no-such-session/messages").as(session).send()
                .expectError(400, "VALIDATION_FAILED");
        client.get("/api/search/conversations").as(session).send().expectError(400, "INVALID_QUERY");
        client.get("/api/search/conversations?q=%20").as(session).send().expectError(400, "INVALID_QUERY");
        JsonNode none = client.get("/api/search/conversations?q=" + HistoryGenerator.ABSENT_WORD).as(session).send()
                .expectStatus(200).json();
        assertEquals(0, none.path("total").asInt());
        assertEquals(0, none.path("results").size());
        // a word joined by underscores is a search like any other (an index without word positions splits it)
        JsonNode joined = client.get("/api/search/conversations?q=" + HistoryGenerator.ABSENT_WORD + "_"
                + HistoryGenerator.ABSENT_WORD).as(session).send().expectStatus(200).json();
        assertEquals(0, joined.path("total").asInt());

        JsonNode status = client.get("/api/history/index").as(session).send().expectStatus(200).json();
        assertTrue(Set.of("listing", "indexing", "ready", "off").contains(status.path("state").asText()), status.toString());
        assertTrue(status.path("sessions").asInt(-1) >= 0, status.toString());
        assertTrue(status.path("sessionsIndexed").asInt(-1) >= 0, status.toString());
        assertNotNull(status.get("startedAt"), status.toString());
    }

    /** A word made of letters only (a tokenizer keeps it whole), unique to this run. */
    private static String word(String prefix) {
        StringBuilder sb = new StringBuilder(prefix);
        for (char c : Names.hex(6).toCharArray()) {
            sb.append((char) ('g' + Character.digit(c, 16)));
        }
        return sb.toString();
    }

    private JsonNode waitForProject(ContractClient client, String path, int sessions) {
        long deadline = System.nanoTime() + LISTED_WITHIN.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            for (JsonNode p : client.get("/api/projects").as(session).send().expectStatus(200).json()) {
                if (path.equals(p.path("fullPath").asText()) || path.equals(p.path("path").asText())) {
                    last = p;
                    if (p.path("sessions").size() >= sessions) {
                        return p;
                    }
                }
            }
            sleep(100);
        }
        return fail("project " + path + " not listed with " + sessions + " sessions within " + LISTED_WITHIN
                + "; last seen: " + last);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String text(JsonNode message) {
        return message.path("text").asText();
    }

    private JsonNode page(ContractClient client, String sid, String project, int limit, int offset) {
        return client.get("/api/sessions/" + sid + "/messages?projectName=" + project + "&limit=" + limit
                + "&offset=" + offset).as(session).send().expectStatus(200).json();
    }

    private JsonNode search(ContractClient client, String q, String provider) {
        return client.get("/api/search/conversations?q=" + q + (provider == null ? "" : "&provider=" + provider)
                + "&limit=50").as(session).send().expectStatus(200).json();
    }

    private static boolean hasSession(JsonNode results, String sid) {
        for (JsonNode r : results.path("results")) {
            if (sid.equals(r.path("sessionId").asText())) {
                return true;
            }
        }
        return false;
    }

    private void await(String what, Duration within, java.util.function.BooleanSupplier check) {
        long start = System.nanoTime();
        while (!check.getAsBoolean()) {
            if (System.nanoTime() - start > within.toNanos()) {
                fail(what + " not within " + within);
            }
            sleep(50);
        }
    }

    @Test
    void seededHistoryIsListedPagedSearchedAndFollowed(ContractClient client, ContractHost host) throws Exception {
        Path home = host.assumeHistoryHome("seeding CLI history");
        String projectPath = Names.serverTempFolder(Names.unique("history"));
        String claudeWord = word("claudeword");
        String codexWord = word("codexword");
        String geminiWord = word("geminiword");
        Instant start = Instant.now().minus(Duration.ofHours(2));
        HistoryGenerator.Written claude = seed(home, "claude", projectPath, "Contract history " + claudeWord,
                "Look at the " + claudeWord + " handler and explain the config", start, 40_000);
        HistoryGenerator.Written codex = seed(home, "codex", projectPath, null,
                "Fix the " + codexWord + " request timeout", start.plusSeconds(60), 30_000);
        HistoryGenerator.Written gemini = seed(home, "gemini", projectPath, "Gemini " + geminiWord,
                "Update the " + geminiWord + " error path", start.plusSeconds(120), 30_000);

        // listed with project and titles, every provider, newest first. The first listing may come from a peek
        // at the head of a file (gemini writes its summary at the end); the titles settle once the index read
        // the sessions, well within the wait.
        JsonNode project = waitForProject(client, projectPath, 3);
        String name = project.path("name").asText();
        Map<String, HistoryGenerator.Written> byId = Map.of(claude.sessionId(), claude, codex.sessionId(), codex,
                gemini.sessionId(), gemini);
        await("the three sessions listed under their titles", LISTED_WITHIN, () -> {
            Set<String> want = new HashSet<>();
            byId.values().forEach(w -> want.add(w.sessionId() + " " + w.displayTitle()));
            Set<String> got = new HashSet<>();
            client.get("/api/projects/" + name + "/sessions").as(session).send().expectStatus(200).json()
                    .forEach(s -> got.add(s.path("id").asText() + " " + s.path("title").asText()));
            return got.equals(want);
        });
        JsonNode sessions = client.get("/api/projects/" + name + "/sessions").as(session).send().expectStatus(200)
                .json();
        assertEquals(3, sessions.size(), sessions.toString());
        Instant previous = Instant.MAX;
        for (JsonNode s : sessions) {
            HistoryGenerator.Written w = byId.get(s.path("id").asText());
            assertNotNull(w, "unexpected session " + s);
            assertEquals(w.provider(), s.path("provider").asText());
            assertEquals(w.displayTitle(), s.path("title").asText(), s.toString());
            Instant last = Instant.parse(s.path("lastActivity").asText());
            assertFalse(last.isAfter(previous), "sessions sorted by lastActivity descending: " + sessions);
            previous = last;
        }

        // messages: newest page, walking back to the oldest, and the oldest page directly
        int total = page(client, claude.sessionId(), name, 1, 0).path("total").asInt();
        assertEquals(claude.messages(), total, "messages of the claude session");
        JsonNode newest = page(client, claude.sessionId(), name, 5, 0);
        assertEquals(5, newest.path("messages").size());
        assertTrue(newest.path("hasMore").asBoolean());
        Set<String> ids = new HashSet<>();
        int offset = 0;
        int pages = 0;
        while (true) {
            JsonNode p = page(client, claude.sessionId(), name, 7, offset);
            for (JsonNode m : p.path("messages")) {
                assertTrue(ids.add(m.path("id").asText()), "message listed twice: " + m.path("id"));
            }
            offset += p.path("messages").size();
            pages++;
            if (!p.path("hasMore").asBoolean()) {
                break;
            }
            assertTrue(pages < 1000, "paging does not end");
        }
        assertEquals(total, ids.size());
        JsonNode oldest = page(client, claude.sessionId(), name, 5, total - 5);
        assertFalse(oldest.path("hasMore").asBoolean());
        JsonNode firstMessage = oldest.path("messages").get(0);
        assertEquals("user", firstMessage.path("role").asText());
        assertTrue(text(firstMessage).contains(claudeWord), firstMessage.toString());
        JsonNode beyond = page(client, claude.sessionId(), name, 5, total);
        assertEquals(0, beyond.path("messages").size());
        assertFalse(beyond.path("hasMore").asBoolean());

        // search: the session's word (after the full-text index caught up), the provider filter, an absent word
        await("search finds the seeded claude word", LISTED_WITHIN,
                () -> hasSession(search(client, claudeWord, null), claude.sessionId()));
        JsonNode hit = search(client, claudeWord, null);
        for (JsonNode r : hit.path("results")) {
            if (claude.sessionId().equals(r.path("sessionId").asText())) {
                assertEquals(name, r.path("projectName").asText());
                assertEquals("claude", r.path("provider").asText());
            }
        }
        assertEquals(0, search(client, claudeWord, "codex").path("total").asInt());
        await("search finds the seeded codex word", LISTED_WITHIN,
                () -> hasSession(search(client, codexWord, "codex"), codex.sessionId()));
        assertEquals(0, search(client, HistoryGenerator.ABSENT_WORD, null).path("total").asInt());

        // a line appended to the session shows within a second in its messages, then in search
        String appendedWord = word("appendedword");
        Files.writeString(home.resolve(claude.file()), HistoryGenerator.claudePromptLine(claude.sessionId(),
                projectPath, "One more thing about " + appendedWord, Instant.now()), StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
        await("the appended line in the newest messages", Duration.ofSeconds(1), () -> {
            JsonNode p = page(client, claude.sessionId(), name, 3, 0);
            return p.path("total").asInt() == total + 1 && text(p.path("messages").get(p.path("messages").size() - 1))
                    .contains(appendedWord);
        });
        await("the appended line in search", Duration.ofSeconds(5),
                () -> hasSession(search(client, appendedWord, "claude"), claude.sessionId()));

        // rename a session, delete another
        String newTitle = "Renamed " + Names.unique("title");
        client.put("/api/sessions/" + codex.sessionId() + "/rename").as(session)
                .json(ContractClient.body("title", newTitle)).send().expectStatus(200);
        assertTrue(titles(client, name).contains(newTitle), "renamed title listed");
        client.delete("/api/projects/" + name + "/sessions/" + gemini.sessionId()).as(session).send()
                .expectStatus(200);
        assertFalse(Files.exists(home.resolve(gemini.file())), "the gemini chat file is deleted");
        assertTrue(ids(client, name).stream().noneMatch(gemini.sessionId()::equals), "deleted session not listed");
        client.delete("/api/projects/" + name + "/sessions/" + gemini.sessionId()).as(session).send()
                .expectError(404, "SESSION_NOT_FOUND");
        client.get("/api/sessions/" + gemini.sessionId() + "/messages?projectName=" + name).as(session).send()
                .expectError(404, "SESSION_NOT_FOUND");
    }

    @Test
    void aHistoryProjectGoesThroughQuickStartRenameAndDelete(ContractClient client, ContractHost host)
            throws Exception {
        Path home = host.assumeHistoryHome("seeding CLI history");
        String projectPath = Names.serverTempFolder(Names.unique("history-lifecycle"));
        HistoryGenerator.Written w = seed(home, "claude", projectPath, null, "Start the " + word("lifeword")
                + " work", Instant.now().minus(Duration.ofHours(1)), 10_000);
        String name = waitForProject(client, projectPath, 1).path("name").asText();

        JsonNode started = projects.quickStart(projectPath);
        assertEquals(name, started.path("name").asText(), "quick-start of a history project is the same project");
        assertEquals(1, started.path("sessions").size(), started.toString());
        assertEquals(w.sessionId(), started.path("sessions").get(0).path("id").asText());

        client.put("/api/projects/" + name + "/rename").as(session)
                .json(ContractClient.body("displayName", "History lifecycle")).send().expectStatus(200);
        JsonNode listed = find(client, name);
        assertNotNull(listed);
        assertEquals("History lifecycle", listed.path("displayName").asText());
        assertEquals(1, listed.path("sessions").size());

        client.delete("/api/projects/" + name).as(session).send().expectStatus(200);
        assertNull(find(client, name), "a deleted project is not listed, although its history remains");
        assertTrue(Files.exists(home.resolve(w.file())), "deleting a project leaves the CLI's files alone");
    }

    private JsonNode find(ContractClient client, String name) {
        for (JsonNode p : client.get("/api/projects").as(session).send().expectStatus(200).json()) {
            if (name.equals(p.path("name").asText())) {
                return p;
            }
        }
        return null;
    }

    private List<String> titles(ContractClient client, String name) {
        List<String> out = new ArrayList<>();
        client.get("/api/projects/" + name + "/sessions").as(session).send().expectStatus(200).json()
                .forEach(s -> out.add(s.path("title").asText()));
        return out;
    }

    private List<String> ids(ContractClient client, String name) {
        List<String> out = new ArrayList<>();
        client.get("/api/projects/" + name + "/sessions").as(session).send().expectStatus(200).json()
                .forEach(s -> out.add(s.path("id").asText()));
        return out;
    }

    private HistoryGenerator.Written seed(Path home, String provider, String projectPath, String title,
            String prompt, Instant start, long bytes) throws IOException {
        HistoryGenerator.Written w = HistoryGenerator.writeSession(home, provider, projectPath, title, prompt, start,
                start.toEpochMilli(), bytes);
        Path file = home.resolve(w.file());
        seeded.add(file);
        if (!provider.equals("codex")) {
            // claude: .claude/projects/<folder of the unique path>/; gemini: .gemini/tmp/<unique basename>/
            seeded.add(provider.equals("gemini") ? file.getParent().getParent() : file.getParent());
        }
        return w;
    }

}
