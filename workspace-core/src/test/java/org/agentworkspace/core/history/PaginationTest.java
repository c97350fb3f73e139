package org.agentworkspace.core.history;

import static org.agentworkspace.core.history.Fixtures.PROMPT_1;
import static org.agentworkspace.core.history.Fixtures.PROMPT_2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.MessagePage;

/** The same tail-first paging, for every provider, over the resumed session (4 messages). */
class PaginationTest {
    private static final String U1 = "user/text: " + PROMPT_1;
    private static final String A1 = "assistant/text: MOCK-REPLY: " + PROMPT_1;
    private static final String U2 = "user/text: " + PROMPT_2;
    private static final String A2 = "assistant/text: MOCK-REPLY: " + PROMPT_2;

    @TempDir
    Path tmp;

    private static void assertPage(MessagePage p, List<String> messages, int total, boolean hasMore) {
        assertEquals(messages, Fixtures.describe(p.messages()));
        assertEquals(total, p.total());
        assertEquals(hasMore, p.hasMore(), "hasMore");
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "codex", "gemini", "qwen", "opencode", "cursor"})
    void offsetZeroIsTheNewestPageInChronologicalOrder(String provider) throws Exception {
        HistoryReader r = HistoryReaders.create().get(provider);
        SessionFile f = r.discover(Fixtures.home(tmp, provider, "resume")).get(0);

        assertPage(r.messages(f, 1, 0), List.of(A2), 4, true);
        assertPage(r.messages(f, 2, 0), List.of(U2, A2), 4, true);
        assertPage(r.messages(f, 2, 2), List.of(U1, A1), 4, false);
        assertPage(r.messages(f, 3, 2), List.of(U1, A1), 4, false);
        assertPage(r.messages(f, 3, 0), List.of(A1, U2, A2), 4, true);
        assertPage(r.messages(f, 1, 3), List.of(U1), 4, false);
        assertPage(r.messages(f, 100, 0), List.of(U1, A1, U2, A2), 4, false);
        assertPage(r.messages(f, 2, 4), List.of(), 4, false);
        assertPage(r.messages(f, 2, 99), List.of(), 4, false);
        assertPage(r.messages(f, 0, 0), List.of(), 4, true);
        assertPage(r.messages(f, Integer.MAX_VALUE, 0), List.of(U1, A1, U2, A2), 4, false);

        // walking back page by page visits every message exactly once
        List<String> walked = new ArrayList<>();
        int offset = 0;
        MessagePage p;
        do {
            p = r.messages(f, 3, offset);
            walked.addAll(0, Fixtures.describe(p.messages()));
            offset += p.messages().size();
        } while (p.hasMore());
        assertEquals(List.of(U1, A1, U2, A2), walked);

        assertThrows(IllegalArgumentException.class, () -> r.messages(f, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> r.messages(f, 1, -1));
    }

    @Test
    void messagePageOfAListUsesTheSameRule() {
        List<HistoryMessage> ms = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ms.add(HistoryMessage.text("m" + i, "s", HistoryMessage.USER, HistoryMessage.TEXT, "t" + i, null, i));
        }
        MessagePage p = MessagePage.of(ms, 4, 0);
        assertEquals(List.of("m6", "m7", "m8", "m9"), p.messages().stream().map(HistoryMessage::id).toList());
        assertTrue(p.hasMore());
        p = MessagePage.of(ms, 4, 8);
        assertEquals(List.of("m0", "m1"), p.messages().stream().map(HistoryMessage::id).toList());
        assertFalse(p.hasMore());
        assertEquals(10, p.total());
    }
}
