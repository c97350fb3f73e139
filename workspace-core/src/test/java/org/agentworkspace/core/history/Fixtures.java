package org.agentworkspace.core.history;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.testkit.realcli.Recordings;

/** Test homes built from the real CLI recordings (and a synthetic cursor store), plus message helpers. */
final class Fixtures {
    static final String PROJECT = Recordings.PROJECT_PLACEHOLDER;
    static final String PROMPT_1 = "Say hello to the recording";
    static final String PROMPT_2 = "And now a second turn";
    static final String TOOL_PROMPT = "Create the file [[mock:tool:write_file path=hello.txt content=hello-from-mock]]";

    private Fixtures() {
    }

    /** A HOME holding what {@code provider} wrote in {@code scenario}; cursor gets the synthetic store. */
    static Path home(Path dir, String provider, String scenario) throws Exception {
        Path home = dir.resolve(provider + "-" + scenario);
        Files.createDirectories(home);
        if ("cursor".equals(provider)) {
            cursorStore(home, scenario);
        } else {
            Recordings.copyHome(provider, scenario, home);
        }
        return home;
    }

    /** The native session id of a recording (cursor: the synthetic chat id). */
    static String sessionId(String provider, String scenario) {
        if ("cursor".equals(provider)) {
            return "tool-write".equals(scenario) ? CURSOR_TOOL_CHAT : CURSOR_CHAT;
        }
        return Recordings.meta(provider, scenario).path("sessionId").asText();
    }

    static final String CURSOR_CHAT = "0b5c5d2e-1111-4aaa-8bbb-cursorchat01";
    static final String CURSOR_TOOL_CHAT = "0b5c5d2e-2222-4aaa-8bbb-cursorchat02";

    /**
     * A SYNTHETIC cursor-agent store (no real recording exists: the CLI is not on npm), shaped after
     * research/providers.md §2.4: meta key "0" with hex-encoded JSON, blobs with JSON messages and binary tree
     * blobs. Same conversation as the other providers' recordings.
     */
    static Path cursorStore(Path home, String scenario) throws IOException, SQLException {
        String chat = "tool-write".equals(scenario) ? CURSOR_TOOL_CHAT : CURSOR_CHAT;
        Path dir = home.resolve(".cursor/chats").resolve(CursorHistoryReader.md5(PROJECT)).resolve(chat);
        Files.createDirectories(dir);
        Path db = dir.resolve("store.db");
        List<String> blobs = new ArrayList<>();
        blobs.add("{\"role\":\"system\",\"content\":\"You are a coding agent.\"}");
        String userInfo = "<user_info>OS Version: linux\\nWorkspace Path: " + PROJECT + "\\nShell: bash</user_info>";
        if ("tool-write".equals(scenario)) {
            blobs.add("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" + userInfo
                    + "\"},{\"type\":\"text\",\"text\":\"<user_query>" + TOOL_PROMPT.replace("\"", "\\\"")
                    + "</user_query>\"}]}");
            blobs.add("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"MOCK-REPLY: writing "
                    + "hello.txt\"},{\"type\":\"tool-call\",\"toolCallId\":\"tool_1\",\"toolName\":\"Write\","
                    + "\"args\":{\"path\":\"hello.txt\",\"contents\":\"hello-from-mock\"}}]}");
            blobs.add("{\"role\":\"tool\",\"content\":[{\"type\":\"tool-result\",\"toolCallId\":\"tool_1\","
                    + "\"toolName\":\"Write\",\"result\":\"Wrote hello.txt\"}]}");
            blobs.add("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"MOCK-REPLY: tool result: "
                    + "Wrote hello.txt\"}]}");
        } else {
            blobs.add("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" + userInfo
                    + "\\n<user_query>" + PROMPT_1 + "</user_query>\"}]}");
            blobs.add("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"MOCK-REPLY: " + PROMPT_1
                    + "\"}]}");
            if ("resume".equals(scenario)) {
                blobs.add("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"<user_query>" + PROMPT_2
                        + "</user_query>\"}]}");
                blobs.add("{\"role\":\"assistant\",\"content\":\"MOCK-REPLY: " + PROMPT_2 + "\"}");
            }
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)");
            s.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)");
            String meta = "{\"agentId\":\"" + chat + "\",\"latestRootBlobId\":\"root\",\"name\":\"Greeting the "
                    + "recording\",\"mode\":\"default\",\"createdAt\":1795303870000,\"lastUsedModel\":\"auto\"}";
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO meta VALUES ('0', ?)")) {
                ps.setString(1, HexFormat.of().formatHex(meta.getBytes(StandardCharsets.UTF_8)));
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO blobs VALUES (?, ?)")) {
                int i = 0;
                for (String b : blobs) {
                    ps.setString(1, String.format("%064x", i++));
                    ps.setBytes(2, b.getBytes(StandardCharsets.UTF_8));
                    ps.executeUpdate();
                    // a binary tree blob after each message: must be ignored
                    ps.setString(1, String.format("%064x", 1000 + i));
                    ps.setBytes(2, new byte[] {0x0A, 0x20, 1, 2, 3, (byte) 0xff});
                    ps.executeUpdate();
                }
            }
        }
        return db;
    }

    /** "role/kind: text" (tool messages: the tool name), to compare conversations across providers. */
    static String describe(HistoryMessage m) {
        return switch (m.kind()) {
            case HistoryMessage.TOOL_CALL, HistoryMessage.TOOL_RESULT -> m.role() + "/" + m.kind() + ": "
                    + m.toolName();
            default -> m.role() + "/" + m.kind() + ": " + m.text();
        };
    }

    static List<String> describe(List<HistoryMessage> ms) {
        return ms.stream().map(Fixtures::describe).toList();
    }

    /** The file-writing tool each CLI used in the tool-write recording. */
    static String writeTool(String provider) {
        return switch (provider) {
            case "claude", "cursor" -> "Write";
            case "codex" -> "apply_patch";
            case "opencode" -> "write";
            default -> "write_file";
        };
    }

    /** A sink applying the {@link HistorySink} contract (replace by id in place, reset), as an index would. */
    static final class Collecting implements HistorySink {
        final Map<String, HistoryMessage> messages = new LinkedHashMap<>();
        int resets;
        int delivered;

        @Override
        public void accept(HistoryMessage m) {
            delivered++;
            messages.put(m.id(), m);
        }

        @Override
        public void reset() {
            resets++;
            messages.clear();
        }

        List<HistoryMessage> list() {
            return List.copyOf(messages.values());
        }
    }
}
