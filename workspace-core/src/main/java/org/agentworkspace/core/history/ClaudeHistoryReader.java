package org.agentworkspace.core.history;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.api.history.Usage;

/**
 * Claude Code: {@code ~/.claude/projects/<folder>/<sessionId>.jsonl}, one record per line.
 *
 * <ul>
 *   <li>Session id = file name; project = the first {@code cwd} recorded in the file (the folder name is a lossy
 *       encoding and is never decoded).</li>
 *   <li>Title: last {@code custom-title} (rank 3) &gt; last {@code ai-title} (2) &gt; last {@code summary} (1).</li>
 *   <li>Messages: {@code user} and {@code assistant} records, one message per content block (text, thinking,
 *       tool_use → tool_call, tool_result → role tool); {@code system} records with an error, a compaction or a
 *       local command. Skipped: {@code isMeta} records (injected context), {@code isSidechain} records (a
 *       sub-agent's own conversation), and every bookkeeping record (attachment, queue-operation, api-request*,
 *       last-prompt, cost-state, ...). User texts that are CLI command echoes ({@code <command-name>},
 *       {@code <local-command-stdout>}, ...) become role system, kind other.</li>
 *   <li>Usage: an assistant API message is split over several lines (one per block) that repeat its usage; it is
 *       attached to the first message of each API message id only.</li>
 *   <li>Sub-agent transcripts ({@code agent-*.jsonl}, {@code <sessionId>/subagents/}) are not sessions.</li>
 * </ul>
 */
final class ClaudeHistoryReader extends JsonlHistoryReader {
    private static final Set<String> FIELDS = Set.of("type", "subtype", "uuid", "sessionId", "timestamp", "cwd",
            "message", "isSidechain", "isMeta", "isCompactSummary", "isApiErrorMessage", "summary", "aiTitle",
            "customTitle", "content", "level");
    private static final List<String> COMMAND_PREFIXES = List.of("<command-name>", "<command-message>",
            "<command-args>", "<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
            "<system-reminder>", "<bash-input>", "<bash-stdout>", "<bash-stderr>", "Caveat: The messages below",
            "[Request interrupted by user");

    @Override
    public String provider() {
        return HistoryProviders.CLAUDE;
    }

    static Path root(Path home) {
        return home.resolve(".claude").resolve("projects");
    }

    @Override
    public List<SessionFile> discover(Path home) throws IOException {
        return newestFirst(home);
    }

    @Override
    public void forEachFile(Path home, java.util.function.Consumer<SessionFile> action) throws IOException {
        Path root = root(home);
        if (!Files.isDirectory(root)) {
            return;
        }
        try (DirectoryStream<Path> projects = Files.newDirectoryStream(root, Files::isDirectory)) {
            for (Path dir : projects) {
                try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.jsonl")) {
                    for (Path f : files) {
                        describe(home, f).ifPresent(action);
                    }
                }
            }
        }
    }

    @Override
    public Optional<SessionFile> describe(Path home, Path file) throws IOException {
        Path root = root(home);
        String name = file.getFileName().toString();
        if (!file.startsWith(root) || root.relativize(file).getNameCount() != 2 || !name.endsWith(".jsonl")
                || name.startsWith("agent-")) {
            return Optional.empty();
        }
        return regularSessionFile(provider(), home, file, name.substring(0, name.length() - ".jsonl".length()));
    }

    @Override
    Set<String> fields() {
        return FIELDS;
    }

    @Override
    LineHandler handler(ReadContext ctx) {
        return new Handler(ctx);
    }

    static boolean isCommandNoise(String text) {
        String t = text.stripLeading();
        for (String p : COMMAND_PREFIXES) {
            if (t.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    private static final class Handler implements LineHandler {
        private final ReadContext ctx;
        private final ToolNames toolNames = new ToolNames();
        private String lastUsageMessageId;

        Handler(ReadContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void line(ObjectNode n, long offset) {
            Instant ts = Json.instant(n.get("timestamp"));
            ctx.facts.activity(ts);
            ctx.facts.project(Json.str(n, "cwd"));
            ctx.facts.sessionId(Json.str(n, "sessionId"));
            String type = Json.str(n, "type");
            if (type == null) {
                return;
            }
            switch (type) {
                case "summary" -> ctx.facts.title(Json.str(n, "summary"), 1);
                case "ai-title" -> ctx.facts.title(Json.str(n, "aiTitle"), 2);
                case "custom-title" -> ctx.facts.title(Json.str(n, "customTitle"), 3);
                case "user" -> {
                    if (!Json.bool(n, "isSidechain") && !Json.bool(n, "isMeta")) {
                        user(n, ts, offset);
                    }
                }
                case "assistant" -> {
                    if (!Json.bool(n, "isSidechain")) {
                        assistant(n, ts, offset);
                    }
                }
                case "system" -> {
                    if (!Json.bool(n, "isSidechain")) {
                        system(n, ts, offset);
                    }
                }
                default -> {
                }
            }
        }

        private String id(ObjectNode n, long offset, int block) {
            String uuid = Json.str(n, "uuid");
            String base = uuid != null ? uuid : "@" + offset;
            return block == 0 ? base : base + ":" + block;
        }

        private void user(ObjectNode n, Instant ts, long offset) {
            JsonNode message = n.get("message");
            JsonNode content = message == null ? null : message.get("content");
            boolean compact = Json.bool(n, "isCompactSummary");
            if (content == null || content.isNull()) {
                return;
            }
            if (content.isTextual()) {
                userText(id(n, offset, 0), content.textValue(), compact, ts, offset);
                return;
            }
            if (!content.isArray()) {
                return;
            }
            int i = 0;
            for (JsonNode block : content) {
                String id = id(n, offset, i++);
                String bt = Json.str(block, "type");
                if ("tool_result".equals(bt)) {
                    String callId = Json.str(block, "tool_use_id");
                    ctx.emit(HistoryMessage.toolResult(id, ctx.sessionId(), toolNames.get(callId), callId,
                            Json.contentText(block.get("content")), Json.bool(block, "is_error"), ts, offset));
                } else if ("text".equals(bt)) {
                    userText(id, Json.str(block, "text"), compact, ts, offset);
                } else if ("image".equals(bt) || "document".equals(bt)) {
                    ctx.emit(HistoryMessage.text(id, ctx.sessionId(), HistoryMessage.USER, HistoryMessage.OTHER,
                            "[" + bt + "]", ts, offset));
                }
            }
        }

        private void userText(String id, String text, boolean compact, Instant ts, long offset) {
            if (text == null) {
                return;
            }
            if (compact) {
                ctx.emit(HistoryMessage.text(id, ctx.sessionId(), HistoryMessage.SYSTEM, HistoryMessage.TEXT, text,
                        ts, offset));
            } else if (isCommandNoise(text)) {
                ctx.emit(HistoryMessage.text(id, ctx.sessionId(), HistoryMessage.SYSTEM, HistoryMessage.OTHER, text,
                        ts, offset));
            } else {
                ctx.emit(HistoryMessage.text(id, ctx.sessionId(), HistoryMessage.USER, HistoryMessage.TEXT, text, ts,
                        offset));
            }
        }

        private void assistant(ObjectNode n, Instant ts, long offset) {
            JsonNode message = n.get("message");
            if (message == null || !message.isObject()) {
                return;
            }
            boolean apiError = Json.bool(n, "isApiErrorMessage");
            Usage usage = null;
            String messageId = Json.str(message, "id");
            JsonNode u = message.get("usage");
            if (u != null && u.isObject() && (messageId == null || !messageId.equals(lastUsageMessageId))) {
                usage = Json.usage(Json.lng(u, "input_tokens"), Json.lng(u, "output_tokens"),
                        Json.lng(u, "cache_read_input_tokens"), Json.lng(u, "cache_creation_input_tokens"));
                lastUsageMessageId = messageId;
            }
            JsonNode content = message.get("content");
            List<HistoryMessage> out = new ArrayList<>();
            if (content != null && content.isTextual()) {
                out.add(HistoryMessage.text(id(n, offset, 0), ctx.sessionId(), HistoryMessage.ASSISTANT,
                        apiError ? HistoryMessage.ERROR : HistoryMessage.TEXT, content.textValue(), ts, offset));
            } else if (content != null && content.isArray()) {
                int i = 0;
                for (JsonNode block : content) {
                    String id = id(n, offset, i++);
                    String bt = Json.str(block, "type");
                    if (bt == null) {
                        continue;
                    }
                    switch (bt) {
                        case "text" -> out.add(HistoryMessage.text(id, ctx.sessionId(), HistoryMessage.ASSISTANT,
                                apiError ? HistoryMessage.ERROR : HistoryMessage.TEXT,
                                nz(Json.str(block, "text")), ts, offset));
                        case "thinking" -> out.add(HistoryMessage.text(id, ctx.sessionId(),
                                HistoryMessage.ASSISTANT, HistoryMessage.THINKING, nz(Json.str(block, "thinking")),
                                ts, offset));
                        case "tool_use", "server_tool_use" -> {
                            toolNames.put(Json.str(block, "id"), Json.str(block, "name"));
                            out.add(HistoryMessage.toolCall(id, ctx.sessionId(), Json.str(block, "name"),
                                    Json.str(block, "id"), Json.json(block.get("input")), ts, offset));
                        }
                        default -> {
                            if (bt.endsWith("_tool_result")) {
                                String callId = Json.str(block, "tool_use_id");
                                out.add(HistoryMessage.toolResult(id, ctx.sessionId(), toolNames.get(callId), callId,
                                        Json.json(block.get("content")), false, ts, offset));
                            }
                        }
                    }
                }
            }
            for (int i = 0; i < out.size(); i++) {
                ctx.emit(i == 0 && usage != null ? out.get(i).withUsage(usage) : out.get(i));
            }
        }

        private void system(ObjectNode n, Instant ts, long offset) {
            String subtype = Json.str(n, "subtype");
            String level = Json.str(n, "level");
            String content = Json.contentText(n.get("content"));
            if ("api_error".equals(subtype) || "error".equals(level)) {
                ctx.emit(HistoryMessage.text(id(n, offset, 0), ctx.sessionId(), HistoryMessage.SYSTEM,
                        HistoryMessage.ERROR, content, ts, offset));
            } else if ("compact_boundary".equals(subtype)) {
                ctx.emit(HistoryMessage.text(id(n, offset, 0), ctx.sessionId(), HistoryMessage.SYSTEM,
                        HistoryMessage.OTHER, content.isEmpty() ? "Conversation compacted" : content, ts, offset));
            } else if ("local_command".equals(subtype)) {
                ctx.emit(HistoryMessage.text(id(n, offset, 0), ctx.sessionId(), HistoryMessage.SYSTEM,
                        HistoryMessage.OTHER, content, ts, offset));
            }
        }

        private static String nz(String s) {
            return s == null ? "" : s;
        }
    }
}
