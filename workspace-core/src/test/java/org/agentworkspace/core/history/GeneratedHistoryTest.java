package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.MessagePage;
import org.agentworkspace.api.history.SessionSummary;
import org.agentworkspace.testkit.historygen.HistoryGenerator;

/**
 * The synthetic history of the testkit's generator (used by the 2 GB benchmark) is read by our real readers the
 * way the generator meant it: every session discovered, 0 corrupt lines, the generator's project path, title (the
 * title the list should show) and message count, the same from the cheap summary, and paging from both ends gives
 * the same messages as one full read.
 */
class GeneratedHistoryTest {
    @TempDir
    static Path tmp;

    static Path home;
    static Map<String, HistoryGenerator.Written> expected = new HashMap<>();

    @BeforeAll
    static void generate() throws Exception {
        home = tmp.resolve("home");
        // 12 MB over 150 sessions: one or two large sessions (> 512 KiB, so summarize() takes the cheap path)
        HistoryGenerator.Result r = HistoryGenerator.generate(
                new HistoryGenerator.Options(home, 8, 150, 12L << 20, 11, 2));
        for (HistoryGenerator.Written w : r.sessions()) {
            expected.put(w.provider() + "/" + w.sessionId(), w);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "codex", "gemini"})
    void everyGeneratedSessionReadsBackAsGenerated(String provider) throws Exception {
        HistoryReaders readers = HistoryReaders.create();
        HistoryReader reader = readers.get(provider);
        List<SessionFile> files = reader.discover(home);
        long want = expected.values().stream().filter(w -> w.provider().equals(provider)).count();
        assertEquals(want, files.size(), "sessions discovered");
        // the sweep's one-at-a-time listing finds the same files, newest first or not
        List<SessionFile> each = new java.util.ArrayList<>();
        reader.forEachFile(home, each::add);
        assertEquals(new java.util.HashSet<>(files), new java.util.HashSet<>(each), "forEachFile");
        assertEquals(files.size(), each.size(), "forEachFile: each file once");
        int cheapPaths = 0;
        for (SessionFile f : files) {
            HistoryGenerator.Written w = expected.get(provider + "/" + f.sessionId());
            assertNotNull(w, "unexpected session " + f);
            SessionSummary exact = reader.scan(f);
            assertEquals(w.projectPath(), exact.projectPath(), f.toString());
            assertEquals(w.displayTitle(), exact.displayTitle(), f.toString());
            assertEquals(w.firstPrompt(), exact.firstPrompt(), f.toString());
            assertNotNull(exact.usage(), f.toString());

            SessionSummary cheap = reader.summarize(f);
            assertEquals(w.projectPath(), cheap.projectPath(), f.toString());
            assertEquals(w.displayTitle(), cheap.displayTitle(), f.toString());
            if (cheap.messageCount() == null) {
                cheapPaths++;
            }

            MessagePage all = reader.messages(f, 1_000_000, 0);
            assertEquals(w.messages(), all.total(), "messages of " + f);
            assertEquals(w.messages(), all.messages().size());
            assertFalse(all.hasMore());
            assertEquals(HistoryMessage.USER, all.messages().get(0).role());
            assertEquals(w.firstPrompt(), all.messages().get(0).text());

            // newest page and oldest page agree with the full read
            int limit = Math.min(7, all.total());
            MessagePage newest = reader.messages(f, limit, 0);
            assertEquals(all.messages().subList(all.total() - limit, all.total()).stream().map(HistoryMessage::id)
                    .toList(), newest.messages().stream().map(HistoryMessage::id).toList());
            MessagePage oldest = reader.messages(f, limit, all.total() - limit);
            assertEquals(all.messages().subList(0, limit).stream().map(HistoryMessage::id).toList(),
                    oldest.messages().stream().map(HistoryMessage::id).toList());
            assertFalse(oldest.hasMore());
        }
        assertEquals(0, reader.stats().corruptLines(), "corrupt lines");
        assertEquals(0, reader.stats().oversizedLines());
        assertTrue(files.size() > 10);
        if (!"gemini".equals(provider)) {
            assertTrue(cheapPaths > 0, "no session large enough for the cheap summary path");
        }
    }
}
