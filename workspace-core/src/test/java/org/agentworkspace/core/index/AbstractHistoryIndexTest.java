package org.agentworkspace.core.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.MessagePage;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.core.history.HistoryReader;
import org.agentworkspace.core.history.HistoryReaders;
import org.agentworkspace.core.history.SessionFile;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.testkit.realcli.Recordings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history index over a HOME holding the real CLI recordings (claude, codex, gemini, qwen with their recorded
 * working directory moved to a temp project folder; opencode's database as recorded), on SQLite and PostgreSQL.
 */
abstract class AbstractHistoryIndexTest {
    @TempDir
    Path tmp;

    protected String url;
    Path home;
    private Path project;
    private Path dataDir;
    protected WorkspaceEngine engine;

    protected abstract String createDatabase() throws Exception;

    protected void dropDatabase() throws Exception {
    }

    @BeforeEach
    void setUp() throws Exception {
        url = createDatabase();
        home = Files.createDirectories(tmp.resolve("home"));
        project = Files.createDirectories(tmp.resolve("work/My App"));
        for (String provider : List.of("claude", "codex", "gemini", "qwen")) {
            for (String scenario : List.of("plain", "tool-write")) {
                for (Path f : Recordings.copyHome(provider, scenario, home)) {
                    String text = Files.readString(f, StandardCharsets.UTF_8);
                    Files.writeString(f, text.replace(Recordings.PROJECT_PLACEHOLDER, project.toString()));
                }
            }
        }
        Recordings.copyHome("opencode", "plain", home);
        dataDir = tmp.resolve("data");
        engine = open();
    }

    protected WorkspaceEngine open() throws InterruptedException {
        // the projects lie in the temporary folder, outside the engine's HOME (the default project root)
        WorkspaceEngine e = WorkspaceEngine.open(EngineConfig.create(dataDir).withJdbcUrl(url)
                .withHistoryHomes(List.of(home)).withAccess(EngineConfig.Access.defaults()
                        .withProjectRoots(List.of(tmp))), Map.of("HOME", tmp.resolve("other-home").toString()));
        assertTrue(e.history().awaitIdle(Duration.ofSeconds(60)), "index ready");
        return e;
    }

    @AfterEach
    void tearDown() throws Exception {
        if (engine != null) {
            engine.close();
        }
        dropDatabase();
    }

    protected HistoryIndex index() {
        return engine.history();
    }

    private String projectName() {
        return ProjectRegistry.nameFor(project);
    }

    /**
     * Waits for {@code ok} up to {@code limit}. A miss fails the test, but only after waiting up to 15 s more, so that
     * the failure says whether the change came late (a slow machine, or a missed watch event that the 5 s sweep
     * caught) or never, with the index's state.
     */
    private void poll(String what, Duration limit, BooleanSupplier ok) throws InterruptedException {
        long start = System.nanoTime();
        long end = start + limit.toNanos();
        while (!ok.getAsBoolean()) {
            if (System.nanoTime() > end) {
                String status = String.valueOf(index().status());
                long late = end + Duration.ofSeconds(15).toNanos();
                String seen = "still not 15 s later";
                while (System.nanoTime() < late) {
                    if (ok.getAsBoolean()) {
                        seen = "seen after " + (System.nanoTime() - start) / 1_000_000 + " ms";
                        break;
                    }
                    Thread.sleep(10);
                }
                throw new AssertionError(what + " not seen within " + limit + " (" + seen + "); index at the limit: "
                        + status);
            }
            Thread.sleep(10);
        }
    }

    private SessionFile file(String provider, String sessionId) throws IOException {
        return HistoryReaders.create().get(provider).discover(home).stream()
                .filter(f -> f.sessionId().equals(sessionId)).findFirst().orElseThrow();
    }

    private String claudeToolSession() {
        return Recordings.meta("claude", "tool-write").path("sessionId").asText();
    }

    @Test
    void projectsComeFromTheRecordedWorkingDirectoryWithEverySession() throws Exception {
        IndexStatus st = index().status();
        assertEquals("ready", st.state());
        assertNotNull(st.listedAt());
        assertNotNull(st.readyAt());
        assertEquals(st.sessions(), st.sessionsIndexed());
        assertEquals(0, st.filesPending());

        IndexedProject p = index().projects().stream().filter(x -> x.name().equals(projectName())).findFirst()
                .orElseThrow();
        assertEquals("my-app-" + p.name().substring(p.name().length() - 8), p.name(), "slug + hash like the registry");
        assertEquals(project.toString(), p.path());
        assertEquals("My App", p.displayName());
        assertFalse(p.registered());
        Set<String> providers = p.sessions().stream().map(IndexedSession::provider).collect(Collectors.toSet());
        assertEquals(Set.of("claude", "codex", "gemini", "qwen"), providers);

        // every session's count and first prompt are what the reader finds reading the whole file
        List<IndexedSession> sessions = index().projectSessions(projectName());
        assertEquals(p.sessionCount(), sessions.size());
        long messages = 0;
        for (IndexedSession s : sessions) {
            HistoryReader r = HistoryReaders.create().get(s.provider());
            var exact = r.scan(file(s.provider(), s.sessionId()));
            assertEquals(exact.messageCount(), s.messageCount(), s.provider() + " count");
            assertEquals(exact.displayTitle(), s.title(), s.provider() + " title");
            assertEquals(exact.lastActivity(), s.lastActivity(), s.provider() + " lastActivity");
        }
        for (int i = 1; i < sessions.size(); i++) {
            assertFalse(sessions.get(i).lastActivity().isAfter(sessions.get(i - 1).lastActivity()), "newest first");
        }
        // opencode recorded its own directory: a project of its own
        assertTrue(index().projects().stream().anyMatch(x -> x.name().equals(
                ProjectRegistry.nameFor(Path.of(Recordings.PROJECT_PLACEHOLDER)))
                && x.sessions().stream().anyMatch(s -> s.provider().equals("opencode"))));
        assertTrue(st.messages() > 0);
    }

    @Test
    void aSweepKeepsWhatItFindsAndDropsWhatVanished() throws Exception {
        assertTrue(index().awaitIdle(Duration.ofSeconds(10)));
        int before = index().status().sessions();
        // opencode's sessions have no file of their own: only the sweep's record of what it found keeps them
        index().sweep();
        index().sweep();
        assertEquals(before, index().status().sessions(), "a sweep over unchanged files keeps every session");
        assertTrue(index().projects().stream().flatMap(x -> x.sessions().stream())
                .anyMatch(x -> x.provider().equals("opencode")), "opencode kept");
        String sid = claudeToolSession();
        Files.delete(file("claude", sid).path());
        index().sweep();
        assertEquals(before - 1, index().status().sessions(), "the deleted session dropped");
        assertTrue(index().projectSessions(projectName()).stream().noneMatch(x -> x.sessionId().equals(sid)));
    }

    @Test
    void aRegisteredFolderAndItsHistoryAreOneProject() {
        engine.projects().quickStart(project.toString());
        List<IndexedProject> same = index().projects().stream().filter(x -> x.path().equals(project.toString()))
                .toList();
        assertEquals(1, same.size());
        assertTrue(same.getFirst().registered());
        assertFalse(same.getFirst().sessions().isEmpty());
        index().renameProject(projectName(), "Renamed");
        assertEquals("Renamed", index().findProject(projectName()).orElseThrow().displayName());
        index().deleteProject(projectName());
        assertTrue(engine.projects().find(projectName()).isEmpty(), "deregistered");
        assertTrue(index().projects().stream().noneMatch(x -> x.name().equals(projectName())), "hidden");
        assertTrue(Files.isDirectory(project), "files untouched");
    }

    @Test
    void pagesMatchTheReaderAtBothEnds() throws Exception {
        for (String provider : List.of("claude", "codex", "gemini", "qwen")) {
            String sid = Recordings.meta(provider, "tool-write").path("sessionId").asText();
            SessionFile f = file(provider, sid);
            HistoryReader r = HistoryReaders.create().get(provider);
            MessagePage all = r.messages(f, 1000, 0);
            assertTrue(all.total() >= 3, provider);
            MessagePage newest = index().messages(projectName(), sid, null, 2, 0);
            assertEquals(all.total(), newest.total());
            assertTrue(newest.hasMore());
            assertEquals(ids(all.messages().subList(all.total() - 2, all.total())), ids(newest.messages()));
            MessagePage oldest = index().messages(projectName(), sid, provider, 2, all.total() - 2);
            assertFalse(oldest.hasMore());
            assertEquals(ids(all.messages().subList(0, 2)), ids(oldest.messages()));
            HistoryMessage a = all.messages().getFirst();
            HistoryMessage b = oldest.messages().getFirst();
            assertEquals(a.text(), b.text());
            assertEquals(a.role(), b.role());
            assertEquals(a.kind(), b.kind());
            assertEquals(a.timestamp(), b.timestamp());
            assertEquals(0, index().messages(projectName(), sid, null, 5, all.total()).messages().size());
        }
        WorkspaceException e = assertThrows(WorkspaceException.class,
                () -> index().messages("other-project-00000000", claudeToolSession(), null, 5, 0));
        assertEquals(HistoryErrorCodes.SESSION_NOT_FOUND, e.code());
    }

    private static List<String> ids(List<HistoryMessage> list) {
        return list.stream().map(HistoryMessage::id).toList();
    }

    @Test
    void searchRanksAMessageThatSaysTheWordMoreOftenFirst() throws Exception {
        String sid = claudeToolSession();
        SessionFile f = file("claude", sid);
        String filler = " and then some other words about the build".repeat(6);
        StringBuilder b = new StringBuilder();
        String[][] rows = {{"rank-often", "zebrafish zebrafish zebrafish"}, {"rank-once", "zebrafish" + filler}};
        for (String[] row : rows) {
            b.append("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"").append(row[1])
                    .append("\"},\"uuid\":\"").append(row[0]).append("\",\"timestamp\":\"2026-11-22T01:00:00.000Z\",")
                    .append("\"cwd\":\"").append(project).append("\",\"sessionId\":\"").append(sid).append("\"}\n");
        }
        Files.writeString(f.path(), b.toString(), StandardOpenOption.APPEND);
        poll("both messages in search", Duration.ofSeconds(5),
                () -> index().search("zebrafish", null, 10).total() == 2);
        List<SearchHit> hits = index().search("zebrafish", null, 10).results();
        assertEquals(List.of("rank-often", "rank-once"), hits.stream().map(SearchHit::messageId).toList());
        assertTrue(hits.get(0).score() > hits.get(1).score() && hits.get(1).score() > 0, hits.toString());
    }

    @Test
    void aWordJoinedByUnderscoresIsFoundByItsParts() throws Exception {
        String sid = claudeToolSession();
        SessionFile f = file("claude", sid);
        String line = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"set zanzibar_quokka_flag now\"},"
                + "\"uuid\":\"underscored-1\",\"timestamp\":\"2026-11-22T01:00:00.000Z\",\"cwd\":\"" + project
                + "\",\"sessionId\":\"" + sid + "\"}\n";
        Files.writeString(f.path(), line, StandardOpenOption.APPEND);
        poll("the underscored word in search", Duration.ofSeconds(5),
                () -> index().search("zanzibar_quokka_flag", null, 10).total() == 1);
        SearchHit hit = index().search("zanzibar_quokka_flag", null, 10).results().getFirst();
        assertEquals("underscored-1", hit.messageId());
        assertTrue(hit.snippet().contains("zanzibar") && hit.snippet().contains("quokka"), hit.snippet());
        assertEquals(1, index().search("quokka zanzibar", null, 10).total());
        assertEquals(0, index().search("zanzibar_quokka_absentword", null, 10).total());
    }

    @Test
    void anAppendedLineIsVisibleInMessagesAndSearchWithinASecond() throws Exception {
        String sid = claudeToolSession();
        SessionFile f = file("claude", sid);
        int before = index().messages(projectName(), sid, null, 1, 0).total();
        assertEquals(0, index().search("quokkaappended", null, 10).total());
        String line = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"the quokkaappended zebra\"},"
                + "\"uuid\":\"appended-1\",\"timestamp\":\"2026-11-22T01:00:00.000Z\",\"cwd\":\"" + project
                + "\",\"sessionId\":\"" + sid + "\"}\n";
        long t0 = System.nanoTime();
        Files.writeString(f.path(), line, StandardOpenOption.APPEND);
        poll("the appended message", Duration.ofSeconds(1), () -> {
            MessagePage p = index().messages(projectName(), sid, null, 1, 0);
            return p.total() == before + 1 && p.messages().getFirst().text().equals("the quokkaappended zebra");
        });
        poll("the appended word in search", Duration.ofSeconds(1),
                () -> index().search("quokkaappended", null, 10).total() == 1);
        System.out.printf("append visible after %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        SearchHit hit = index().search("quokkaappended", null, 10).results().getFirst();
        assertEquals("claude", hit.provider());
        assertEquals(sid, hit.sessionId());
        assertEquals("appended-1", hit.messageId());
        assertEquals(projectName(), hit.projectName());
        assertTrue(hit.snippet().contains("«quokkaappended»"), hit.snippet());

        // a corrupt line is skipped and counted, reading goes on
        long corrupt = index().status().corruptLines();
        Files.writeString(f.path(), "{not json\n" + line.replace("appended-1", "appended-2"),
                StandardOpenOption.APPEND);
        poll("the corrupt line counted", Duration.ofSeconds(5), () -> index().status().corruptLines() == corrupt + 1
                && index().messages(projectName(), sid, null, 1, 0).total() == before + 2);
    }

    @Test
    void longToolPayloadsAreStoredClippedAndServedWhole() throws Exception {
        Path dir = Files.createDirectories(home.resolve(".claude/projects/-long-tools"));
        Path longProject = Files.createDirectories(tmp.resolve("work/long"));
        String sid = "22222222-3333-4444-5555-666666666666";
        String big = "line of output \u00e9\ud83d\ude00 ".repeat(600);
        String bigInput = "x".repeat(5000);
        String head = "\"cwd\":\"" + longProject + "\",\"sessionId\":\"" + sid + "\"";
        Files.writeString(dir.resolve(sid + ".jsonl"), String.join("\n",
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"write it\"},\"uuid\":\"l-1\","
                        + "\"timestamp\":\"2026-11-22T02:00:00.000Z\"," + head + "}",
                "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
                        + "\"id\":\"call-1\",\"name\":\"Write\",\"input\":{\"content\":\"" + bigInput + "\"}},"
                        + "{\"type\":\"tool_use\",\"id\":\"call-2\",\"name\":\"Read\",\"input\":{\"path\":\"a\"}}]},"
                        + "\"uuid\":\"l-2\",\"timestamp\":\"2026-11-22T02:00:01.000Z\"," + head + "}",
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
                        + "\"tool_use_id\":\"call-1\",\"content\":\"" + big + "\"},{\"type\":\"tool_result\","
                        + "\"tool_use_id\":\"call-2\",\"content\":\"short\"}]},\"uuid\":\"l-3\","
                        + "\"timestamp\":\"2026-11-22T02:00:02.000Z\"," + head + "}") + "\n");
        String name = ProjectRegistry.nameFor(longProject);
        // a new folder: the watcher registers it and lists it (the sweep is the backstop); generous under load
        poll("the long session indexed", Duration.ofSeconds(15), () -> {
            try {
                return index().messages(name, sid, null, 10, 0).total() == 5 && index().status().filesPending() == 0;
            } catch (WorkspaceException e) {
                return false;
            }
        });
        SessionFile f = file("claude", sid);
        List<HistoryMessage> fromFile = HistoryReaders.create().get("claude").messages(f, 10, 0).messages();
        MessagePage page = index().messages(name, sid, null, 10, 0);
        assertEquals(fromFile.size(), page.messages().size());
        for (int i = 0; i < fromFile.size(); i++) {
            HistoryMessage a = fromFile.get(i);
            HistoryMessage b = page.messages().get(i);
            assertEquals(a.id(), b.id());
            assertEquals(a.toolInputJson(), b.toolInputJson(), a.id());
            assertEquals(a.toolOutput(), b.toolOutput(), a.id());
        }
        assertEquals("l-3", page.messages().get(3).id());
        assertEquals(big, page.messages().get(3).toolOutput());
        assertEquals("{\"content\":\"" + bigInput + "\"}", page.messages().get(1).toolInputJson());
        // the store holds the long payloads clipped, with the offset of their line
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
             java.sql.PreparedStatement ps = c.prepareStatement("SELECT m.msg_id, m.tool_input, m.tool_output, "
                     + "m.src_offset FROM history_messages m JOIN history_sessions s ON s.id = m.session_key "
                     + "WHERE s.session_id = ? ORDER BY m.position")) {
            ps.setString(1, sid);
            Map<String, Object[]> rows = new java.util.HashMap<>();
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(rs.getString(1), new Object[] {rs.getString(2), rs.getString(3), rs.getObject(4)});
                }
            }
            assertNull(rows.get("l-2")[0], "a clipped input is left out");
            assertNotNull(rows.get("l-2")[2]);
            assertEquals(HistoryIndex.CLIP_CHARS, ((String) rows.get("l-3")[1]).length());
            assertNotNull(rows.get("l-3")[2]);
            assertNull(rows.get("l-2:1")[2], "a short call is stored whole");
            assertEquals("short", rows.get("l-3:1")[1]);
        }
    }

    @Test
    void aRewrittenFileIsReadAgainFromTheStart() throws Exception {
        String sid = claudeToolSession();
        SessionFile f = file("claude", sid);
        List<String> lines = Files.readAllLines(f.path());
        // the CLI rewrote the file shorter: keep its first lines only
        Files.write(f.path(), lines.subList(0, lines.size() / 2));
        int expected = HistoryReaders.create().get("claude").scan(file("claude", sid)).messageCount();
        poll("the rewritten session", Duration.ofSeconds(5),
                () -> index().messages(projectName(), sid, null, 1, 0).total() == expected);
    }

    /** Search totals count full-text rows (without a provider filter): a row left behind would be counted. */
    @Test
    void searchForgetsMessagesOfRewrittenAndDeletedSessions() throws Exception {
        String sid = claudeToolSession();
        SessionFile f = file("claude", sid);
        String original = Files.readString(f.path());
        String line = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"a wombatforgotten word\"},"
                + "\"uuid\":\"forgotten-1\",\"timestamp\":\"2026-11-22T01:00:00.000Z\",\"cwd\":\"" + project
                + "\",\"sessionId\":\"" + sid + "\"}\n";
        Files.writeString(f.path(), line, StandardOpenOption.APPEND);
        poll("the appended word found", Duration.ofSeconds(5),
                () -> index().search("wombatforgotten", null, 10).total() == 1);
        // the CLI rewrote the file without it: read again from the start, its message and full-text row dropped
        Files.writeString(f.path(), original);
        poll("the word gone after the rewrite", Duration.ofSeconds(5),
                () -> index().search("wombatforgotten", null, 10).total() == 0);
        // written again: one row, not the old one as well
        Files.writeString(f.path(), original + line);
        poll("the word back once", Duration.ofSeconds(5),
                () -> index().search("wombatforgotten", null, 10).total() == 1);
        assertTrue(index().awaitIdle(Duration.ofSeconds(10)));
        assertEquals(1, index().search("wombatforgotten", null, 10).total());
        index().deleteSession(projectName(), sid, "claude");
        poll("the word gone with the session", Duration.ofSeconds(5),
                () -> index().search("wombatforgotten", null, 10).total() == 0);
    }

    @Test
    void sessionsAddedAndRemovedWhileStoppedShowAfterARestart() throws Exception {
        String name = projectName();
        int count = index().findProject(name).orElseThrow().sessionCount();
        String gone = claudeToolSession();
        engine.close();
        // while stopped: a session file of the project deleted, one of a new project written
        Files.delete(file("claude", gone).path());
        Path elsewhere = Files.createDirectories(tmp.resolve("work/Stopped Meanwhile"));
        Path dir = Files.createDirectories(home.resolve(".claude/projects/-while-stopped"));
        String added = "44444444-5555-6666-7777-888888888888";
        Files.writeString(dir.resolve(added + ".jsonl"), "{\"type\":\"user\",\"message\":{\"role\":\"user\","
                + "\"content\":\"written while the server was stopped\"},\"uuid\":\"stopped-1\",\"timestamp\":"
                + "\"2026-11-22T03:00:00.000Z\",\"cwd\":\"" + elsewhere + "\",\"sessionId\":\"" + added + "\"}\n");
        engine = open();
        // the list a restart prepares from the store before it lists the disk is not what is answered afterwards
        List<IndexedProject> projects = index().projects();
        assertEquals(count - 1, projects.stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow()
                .sessionCount());
        IndexedProject fresh = projects.stream().filter(p -> p.path().equals(elsewhere.toString())).findFirst()
                .orElseThrow(() -> new AssertionError("the new project listed: " + projects));
        assertEquals(List.of(added), fresh.sessions().stream().map(IndexedSession::sessionId).toList());
        assertFalse(index().projectSessions(name).stream().anyMatch(x -> x.sessionId().equals(gone)));
    }

    @Test
    void aRenameOverridesTheTitleAndSurvivesRestartAndReindex() throws Exception {
        String sid = claudeToolSession();
        IndexedSession s = index().renameSession(sid, null, "  My title ");
        assertEquals("My title", s.title());
        engine.close();
        // a fresh index on the same store, and the file changed so it is read again
        SessionFile f = file("claude", sid);
        Files.writeString(f.path(), "\n", StandardOpenOption.APPEND);
        engine = open();
        IndexedSession again = index().projectSessions(projectName()).stream()
                .filter(x -> x.sessionId().equals(sid)).findFirst().orElseThrow();
        assertEquals("My title", again.title());
        // a blank title removes the override: the CLI's title (here the first prompt) shows again
        assertEquals(HistoryReaders.create().get("claude").scan(file("claude", sid)).displayTitle(),
                index().renameSession(sid, "claude", "").title());
        assertNull(index().projectSessions(projectName()).stream().filter(x -> x.sessionId().equals(sid))
                .findFirst().orElseThrow().customTitle());
        WorkspaceException e = assertThrows(WorkspaceException.class, () -> index().renameSession("nope", null, "x"));
        assertEquals(HistoryErrorCodes.SESSION_NOT_FOUND, e.code());
    }

    @Test
    void deleteRemovesTheSessionFileOrRefusesSharedStores() throws Exception {
        String sid = claudeToolSession();
        SessionFile f = file("claude", sid);
        index().deleteSession(projectName(), sid, null);
        assertFalse(Files.exists(f.path()));
        assertTrue(index().projectSessions(projectName()).stream().noneMatch(x -> x.sessionId().equals(sid)));
        assertEquals(0, index().search("hello", "claude", 50).results().stream()
                .filter(h -> h.sessionId().equals(sid)).count());

        String codex = Recordings.meta("codex", "plain").path("sessionId").asText();
        SessionFile cf = file("codex", codex);
        index().deleteSession(projectName(), codex, "codex");
        assertFalse(Files.exists(cf.path()));

        String oc = Recordings.meta("opencode", "plain").path("sessionId").asText();
        String ocProject = ProjectRegistry.nameFor(Path.of(Recordings.PROJECT_PLACEHOLDER));
        WorkspaceException e = assertThrows(WorkspaceException.class, () -> index().deleteSession(ocProject, oc, null));
        assertEquals(HistoryErrorCodes.SESSION_DELETE_UNSUPPORTED, e.code());
        assertTrue(Files.exists(home.resolve(".local/share/opencode/opencode.db")));
    }

    @Test
    void searchRanksFiltersAndRejects() throws Exception {
        SearchResults hello = index().search("hello", null, 50);
        assertTrue(hello.total() > 0);
        assertEquals(hello.results().size(), Math.min(50, hello.total()));
        Set<String> providers = hello.results().stream().map(SearchHit::provider).collect(Collectors.toSet());
        assertTrue(providers.size() >= 3, providers.toString());
        for (int i = 1; i < hello.results().size(); i++) {
            assertTrue(hello.results().get(i).score() <= hello.results().get(i - 1).score(), "best first");
        }
        for (SearchHit h : hello.results()) {
            assertTrue(h.snippet().toLowerCase().contains("«hello»"), h.snippet());
            assertNotNull(h.sessionTitle());
        }
        SearchResults gemini = index().search("hello", "gemini", 50);
        assertTrue(gemini.total() > 0);
        assertTrue(gemini.results().stream().allMatch(h -> h.provider().equals("gemini")));
        assertEquals(0, index().search("xylophoneabsent", null, 50).total());
        assertTrue(index().search("xylophoneabsent", null, 50).results().isEmpty());
        assertEquals(HistoryErrorCodes.INVALID_QUERY,
                assertThrows(WorkspaceException.class, () -> index().search("!!! ???", null, 5)).code());
        assertEquals(HistoryErrorCodes.INVALID_QUERY,
                assertThrows(WorkspaceException.class, () -> index().search(" ", null, 5)).code());
    }

    @Test
    void aWordInMoreThanTenThousandMessagesIsAnsweredNewestFirst() throws Exception {
        Path dir = Files.createDirectories(home.resolve(".claude/projects/-many"));
        String sid = "22222222-3333-4444-5555-666666666666";
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 10_050; i++) {
            b.append("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"plentiful word n").append(i)
                    .append("\"},\"uuid\":\"p-").append(i).append("\",\"timestamp\":\"2026-11-22T02:00:00.000Z\",")
                    .append("\"cwd\":\"").append(project).append("\",\"sessionId\":\"").append(sid).append("\"}\n");
        }
        Files.writeString(dir.resolve(sid + ".jsonl"), b.toString());
        poll("the big session indexed", Duration.ofSeconds(60),
                () -> index().search("plentiful", null, 5).total() == HistoryIndex.MAX_TOTAL);
        SearchResults common = index().search("plentiful", "claude", 3);
        assertEquals(List.of("p-10049", "p-10048", "p-10047"),
                common.results().stream().map(SearchHit::messageId).toList());
        assertTrue(common.results().stream().allMatch(h -> h.score() == 0.0));
        SearchResults rare = index().search("plentiful n77", null, 5);
        assertEquals(1, rare.total());
        assertEquals("p-77", rare.results().getFirst().messageId());
        assertTrue(rare.results().getFirst().snippet().contains("«n77»"), rare.results().getFirst().snippet());
    }

    @Test
    void aDeletedHistoryProjectReturnsWithNewActivity() throws Exception {
        index().renameProject(projectName(), "Shown Name");
        assertEquals("Shown Name", index().findProject(projectName()).orElseThrow().displayName());
        index().deleteProject(projectName());
        assertTrue(index().projects().stream().noneMatch(x -> x.name().equals(projectName())));
        SessionFile f = file("claude", claudeToolSession());
        String line = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"back again\"},"
                + "\"uuid\":\"back-1\",\"timestamp\":\"2030-01-01T00:00:00.000Z\",\"cwd\":\"" + project
                + "\",\"sessionId\":\"" + claudeToolSession() + "\"}\n";
        Files.writeString(f.path(), line, StandardOpenOption.APPEND);
        poll("the project back", Duration.ofSeconds(5),
                () -> index().projects().stream().anyMatch(x -> x.name().equals(projectName())));
        assertEquals("PROJECT_NOT_FOUND",
                assertThrows(WorkspaceException.class, () -> index().deleteProject("nothing-12345678")).code());
    }

    @Test
    void aSessionFileRemovedOnDiskLeavesTheIndexAndAnotherHomeReplacesTheOld() throws Exception {
        String sid = claudeToolSession();
        Files.delete(file("claude", sid).path());
        poll("the removed session gone", Duration.ofSeconds(7), () -> index().projectSessions(projectName()).stream()
                .noneMatch(x -> x.sessionId().equals(sid)));
        // restart on another (empty) home: the old home's sessions are dropped
        engine.close();
        Path other = Files.createDirectories(tmp.resolve("empty-home"));
        engine = WorkspaceEngine.open(EngineConfig.create(dataDir).withJdbcUrl(url).withHistoryHomes(List.of(other)),
                Map.of("HOME", tmp.resolve("other-home").toString()));
        assertTrue(index().awaitIdle(Duration.ofSeconds(30)));
        assertEquals(List.of(), index().projects());
        assertEquals(0, index().status().sessions());
        assertEquals(0, index().search("hello", null, 10).total());
    }

    @Test
    void aNewSessionFileIsFoundByTheWatcher() throws Exception {
        Path dir = home.resolve(".claude/projects/-new-folder");
        Files.createDirectories(dir);
        Path newProject = Files.createDirectories(tmp.resolve("work/second"));
        String sid = "11111111-2222-3333-4444-555555555555";
        Files.writeString(dir.resolve(sid + ".jsonl"), "{\"type\":\"user\",\"message\":{\"role\":\"user\","
                + "\"content\":\"fresh session\"},\"uuid\":\"n-1\",\"timestamp\":\"2026-11-22T02:00:00.000Z\","
                + "\"cwd\":\"" + newProject + "\",\"sessionId\":\"" + sid + "\"}\n");
        poll("the new project", Duration.ofSeconds(15), () -> index().projects().stream()
                .anyMatch(p -> p.name().equals(ProjectRegistry.nameFor(newProject))
                        && p.sessions().size() == 1 && p.sessions().getFirst().title().equals("fresh session")));
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(1, s.count());
        }
    }
}
