package org.agentworkspace.core.history;

import static org.agentworkspace.core.history.Fixtures.PROMPT_1;
import static org.agentworkspace.core.history.Fixtures.PROMPT_2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.agentworkspace.api.history.SessionSummary;
import org.agentworkspace.testkit.realcli.Recordings;

/**
 * readFrom(offset) as an index uses it: read a session, let the CLI append (the real resume recording appends to
 * the plain one), read only what was appended, merge the facts.
 */
class IncrementalReadTest {
    @TempDir
    Path tmp;

    private static byte[] recorded(String provider, String scenario, String relative) throws Exception {
        try (InputStream in = Recordings.open(provider, scenario, relative).orElseThrow()) {
            return in.readAllBytes();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "codex", "gemini", "qwen"})
    void onlyAppendedLinesAreReadAndTheOffsetAdvances(String provider) throws Exception {
        HistoryReader r = HistoryReaders.create().get(provider);
        Path home = Fixtures.home(tmp, provider, "plain");
        SessionFile f = r.discover(home).get(0);

        Fixtures.Collecting index = new Fixtures.Collecting();
        ReadResult first = r.readFrom(f, 0, index);
        assertEquals(Files.size(f.path()), first.nextOffset());
        assertEquals(2, index.list().size());

        // nothing appended: nothing read
        ReadResult idle = r.readFrom(f, first.nextOffset(), index);
        assertEquals(0, idle.recordsRead());
        assertEquals(first.nextOffset(), idle.nextOffset());

        // the CLI appends the second turn (the resume recording's file starts with the plain one, byte for byte)
        String rel = "home/" + home.relativize(f.path());
        byte[] resumed = recorded(provider, "resume", rel);
        byte[] plain = Files.readAllBytes(f.path());
        assertTrue(Arrays.equals(plain, 0, plain.length, resumed, 0, plain.length), "resume appends to plain");
        Files.write(f.path(), Arrays.copyOfRange(resumed, plain.length, resumed.length), StandardOpenOption.APPEND);

        long linesAppended = countLines(resumed, plain.length);
        ReadResult second = r.readFrom(f, first.nextOffset(), index);
        assertEquals(linesAppended, second.recordsRead(), "only the appended lines were parsed");
        assertEquals(resumed.length, second.nextOffset());
        assertEquals(List.of("user/text: " + PROMPT_1, "assistant/text: MOCK-REPLY: " + PROMPT_1,
                "user/text: " + PROMPT_2, "assistant/text: MOCK-REPLY: " + PROMPT_2), Fixtures.describe(index.list()));
        if ("gemini".equals(provider)) {
            assertTrue(index.resets > 0, "gemini rewrote its message list on resume");
        } else {
            assertEquals(0, index.resets);
            assertEquals(2, index.delivered - 2, "only the two new messages were delivered");
        }

        // merged facts = facts of a full read
        SessionFacts merged = first.facts().merge(second.facts());
        SessionSummary full = r.scan(f);
        assertEquals(full.messageCount().longValue(), merged.messageCount());
        assertEquals(PROMPT_1, merged.firstPrompt());
        assertEquals(full.lastActivity(), merged.lastActivity());
        assertEquals(full.createdAt(), merged.firstActivity());
        assertEquals(Fixtures.PROJECT, merged.projectPath());
    }

    private static long countLines(byte[] b, int from) {
        long n = 0;
        for (int i = from; i < b.length; i++) {
            if (b[i] == '\n') {
                n++;
            }
        }
        return n;
    }

    @Test
    void oneAppendedClaudeLineIsTheOnlyThingRead() throws Exception {
        HistoryReader r = HistoryReaders.create().get("claude");
        Path home = Fixtures.home(tmp, "claude", "plain");
        SessionFile f = r.discover(home).get(0);
        ReadResult first = r.readFrom(f, 0, HistorySink.discard());
        Files.writeString(f.path(), "{\"parentUuid\":null,\"isSidechain\":false,\"type\":\"assistant\",\"uuid\":"
                + "\"appended-1\",\"timestamp\":\"2026-11-21T23:59:00.000Z\",\"cwd\":\"/tmp/aw-project\",\"sessionId\":\""
                + f.sessionId() + "\",\"message\":{\"id\":\"msg_x\",\"role\":\"assistant\",\"content\":[{\"type\":"
                + "\"text\",\"text\":\"appended answer\"}],\"usage\":{\"input_tokens\":3,\"output_tokens\":2}}}\n",
                StandardOpenOption.APPEND);
        Fixtures.Collecting sink = new Fixtures.Collecting();
        ReadResult next = r.readFrom(f, first.nextOffset(), sink);
        assertEquals(1, next.recordsRead());
        assertEquals(Files.size(f.path()), next.nextOffset());
        assertEquals(List.of("assistant/text: appended answer"), Fixtures.describe(sink.list()));
        assertEquals(first.nextOffset(), sink.list().get(0).nativeOffset(), "native offset = where the line starts");
        assertEquals("2026-11-21T23:59:00Z", next.facts().lastActivity().toString());
        assertEquals(5, sink.list().get(0).usage().total());
    }

    @Test
    void opencodeWatermarkRedeliversOnlyRowsAtOrAfterIt() throws Exception {
        HistoryReader r = HistoryReaders.create().get("opencode");
        SessionFile f = r.discover(Fixtures.home(tmp, "opencode", "resume")).get(0);
        Fixtures.Collecting index = new Fixtures.Collecting();
        ReadResult first = r.readFrom(f, 0, index);
        assertTrue(first.nextOffset() > 0);
        assertEquals(4, index.list().size());
        ReadResult again = r.readFrom(f, first.nextOffset(), index);
        assertTrue(again.recordsRead() < first.recordsRead(), "only rows updated at the watermark are read again");
        assertEquals(first.nextOffset(), again.nextOffset());
        assertEquals(4, index.list().size(), "re-delivered ids replace, never duplicate");
        ReadResult later = r.readFrom(f, first.nextOffset() + 1, index);
        assertEquals(0, later.recordsRead());
    }

    @Test
    void cursorOffsetIsTheLastBlobRowid() throws Exception {
        HistoryReader r = HistoryReaders.create().get("cursor");
        SessionFile f = r.discover(Fixtures.home(tmp, "cursor", "resume")).get(0);
        Fixtures.Collecting index = new Fixtures.Collecting();
        ReadResult first = r.readFrom(f, 0, index);
        assertEquals(4, index.list().size());
        ReadResult idle = r.readFrom(f, first.nextOffset(), index);
        assertEquals(0, idle.recordsRead());
        assertFalse(idle.partialTail());
    }
}
