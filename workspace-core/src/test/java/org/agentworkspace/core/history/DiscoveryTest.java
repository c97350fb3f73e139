package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.api.history.SessionSummary;
import org.agentworkspace.testkit.realcli.Recordings;

/** One HOME holding every provider's recorded sessions: each reader finds exactly its own. */
class DiscoveryTest {
    @TempDir
    Path home;

    @Test
    void everyReaderFindsItsOwnSessionsInASharedHome() throws Exception {
        for (String p : List.of("claude", "codex", "gemini", "qwen")) {
            Recordings.copyHome(p, "resume", home);
            Recordings.copyHome(p, "tool-write", home);
        }
        Recordings.copyHome("opencode", "resume", home);
        Fixtures.cursorStore(home, "resume");
        Fixtures.cursorStore(home, "tool-write");
        Files.writeString(home.resolve(".claude/projects/-tmp-aw-project/notes.txt"), "not a session");

        HistoryReaders readers = HistoryReaders.create();
        assertEquals(HistoryProviders.ALL, readers.all().stream().map(HistoryReader::provider).toList());
        Set<String> projects = new HashSet<>();
        for (HistoryReader r : readers.all()) {
            List<SessionFile> found = r.discover(home);
            int expected = "opencode".equals(r.provider()) ? 1 : 2;
            assertEquals(expected, found.size(), r.provider() + ": " + found);
            for (int i = 1; i < found.size(); i++) {
                assertTrue(!found.get(i).modified().isAfter(found.get(i - 1).modified()), "newest first");
            }
            for (SessionFile f : found) {
                assertEquals(r.provider(), f.provider());
                SessionSummary s = r.summarize(f);
                projects.add(s.projectPath());
                if (!"opencode".equals(r.provider())) {
                    assertEquals(Optional.of(f), r.describe(home, f.path()), "describe agrees with discover");
                }
            }
            assertEquals(Optional.empty(), r.describe(home, home.resolve(".claude/projects/-tmp-aw-project/notes.txt")));
        }
        assertEquals(Set.of(Fixtures.PROJECT), projects, "every session's project is the recorded cwd");
    }

    @Test
    void missingProviderDirectoriesGiveNothing() throws Exception {
        for (HistoryReader r : HistoryReaders.create().all()) {
            assertEquals(List.of(), r.discover(home), r.provider());
        }
    }

    @Test
    void opencodeChildSessionsAreFlaggedAndArchivedOnesHidden() throws Exception {
        Recordings.copyHome("opencode", "tool-write", home);
        Path db = OpenCodeHistoryReader.database(home);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE session SET parent_id = 'ses_parent', title = 'New session - 2026-11-21T23:31:39'");
            s.executeUpdate("INSERT INTO session (id, project_id, slug, directory, title, version, time_created,"
                    + " time_updated, time_archived) VALUES ('ses_archived', 'global', 'old', '/tmp/old', 'Old', '1',"
                    + " 1, 2, 3)");
        }
        HistoryReader r = HistoryReaders.create().get("opencode");
        List<SessionFile> found = r.discover(home);
        assertEquals(1, found.size());
        SessionSummary s = r.scan(found.get(0));
        assertTrue(s.subagent());
        assertNull(s.title(), "the CLI's placeholder title is no title");
        assertEquals(Fixtures.TOOL_PROMPT, s.displayTitle());
    }
}
