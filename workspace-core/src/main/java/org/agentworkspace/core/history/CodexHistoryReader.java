package org.agentworkspace.core.history;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.HistoryProviders;

/**
 * Codex: {@code ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl}, lines {@code {timestamp, type, payload}}.
 *
 * <ul>
 *   <li>Session id = the UUID at the end of the file name ({@code session_meta.payload.id}); project =
 *       {@code session_meta.payload.cwd}; sub-agent threads ({@code thread_source == "subagent"} or a
 *       {@code source.subagent}) are flagged.</li>
 *   <li>Title = {@code thread_name} from {@code ~/.codex/session_index.jsonl} (last line for the id wins) or a
 *       {@code thread_name_updated} event.</li>
 *   <li>User prompts come from {@code event_msg} ({@code user_message} with kind plain/absent in older CLIs,
 *       {@code item_completed} of a {@code UserMessage} item in 0.169); {@code response_item} messages with role
 *       user/developer are the injected context and are skipped. Assistant text, reasoning summaries, function/custom
 *       tool calls and their outputs come from {@code response_item}. An identical prompt reported twice in a row
 *       (both event kinds) is delivered once.</li>
 *   <li>Usage: codex records running totals ({@code token_count.info.total_token_usage}), kept as the session's
 *       usage; messages carry none.</li>
 * </ul>
 */
final class CodexHistoryReader extends JsonlHistoryReader {
    private static final Pattern ID_IN_NAME = Pattern.compile(
            "([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\\.jsonl$");

    private record IndexCache(long size, Instant modified, Map<String, String> titles) {
    }

    private final Map<Path, IndexCache> indexCache = new ConcurrentHashMap<>();

    @Override
    public String provider() {
        return HistoryProviders.CODEX;
    }

    static Path root(Path home) {
        return home.resolve(".codex").resolve("sessions");
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
        for (Path y : dirs(root)) {
            for (Path m : dirs(y)) {
                for (Path d : dirs(m)) {
                    try (DirectoryStream<Path> files = Files.newDirectoryStream(d, "rollout-*.jsonl")) {
                        for (Path f : files) {
                            describe(home, f).ifPresent(action);
                        }
                    }
                }
            }
        }
    }

    private static List<Path> dirs(Path p) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(p, Files::isDirectory)) {
            s.forEach(out::add);
        }
        return out;
    }

    @Override
    public Optional<SessionFile> describe(Path home, Path file) throws IOException {
        Path root = root(home);
        String name = file.getFileName().toString();
        if (!file.startsWith(root) || root.relativize(file).getNameCount() != 4 || !name.startsWith("rollout-")
                || !name.endsWith(".jsonl")) {
            return Optional.empty();
        }
        Matcher m = ID_IN_NAME.matcher(name);
        if (m.find()) {
            return regularSessionFile(provider(), home, file, m.group(1));
        }
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        String id = idFromMeta(file);
        if (id == null) {
            return Optional.empty();
        }
        return Optional.of(sessionFile(provider(), home, file, id));
    }

    /** The id in the first line's session_meta, for files whose name carries none. */
    private static String idFromMeta(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            LineReader.Line l = new LineReader(ch, 0, MAX_LINE_BYTES).next();
            if (l == null || l.oversized()) {
                return null;
            }
            ObjectNode n = Json.parseObject(l.bytes(), l.off(), l.len(), Set.of("type", "payload"));
            return "session_meta".equals(Json.str(n, "type")) ? Json.str(n.get("payload"), "id") : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Titles from ~/.codex/session_index.jsonl, re-read only when the file changed. */
    private String indexedTitle(Path home, String sessionId) {
        Path index = home.resolve(".codex").resolve("session_index.jsonl");
        try {
            if (!Files.isRegularFile(index)) {
                return null;
            }
            BasicFileAttributes a = Files.readAttributes(index, BasicFileAttributes.class);
            Instant mod = a.lastModifiedTime().toInstant();
            IndexCache c = indexCache.get(index);
            if (c == null || c.size() != a.size() || !c.modified().equals(mod)) {
                Map<String, String> titles = new HashMap<>();
                try (FileChannel ch = FileChannel.open(index, StandardOpenOption.READ)) {
                    LineReader r = new LineReader(ch, 0, 1024 * 1024);
                    LineReader.Line l;
                    while ((l = r.next()) != null) {
                        if (l.oversized() || l.blank()) {
                            continue;
                        }
                        try {
                            ObjectNode n = Json.parseObject(l.bytes(), l.off(), l.len(), Set.of("id", "thread_name"));
                            String id = Json.str(n, "id");
                            String name = Json.str(n, "thread_name");
                            if (id != null && name != null && !name.isBlank()) {
                                titles.put(id, name);
                            }
                        } catch (IOException | RuntimeException e) {
                            // a corrupt index line only loses that title
                        }
                    }
                }
                c = new IndexCache(a.size(), mod, titles);
                indexCache.put(index, c);
            }
            return c.titles().get(sessionId);
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    void prime(ReadContext ctx) {
        ctx.facts.title(indexedTitle(ctx.file.home(), ctx.sessionId()), 3);
    }

    @Override
    Set<String> fields() {
        return Set.of("timestamp", "type", "payload");
    }

    @Override
    LineHandler handler(ReadContext ctx) {
        return new Handler(ctx);
    }

    private static final class Handler implements LineHandler {
        private final ReadContext ctx;
        private final ToolNames toolNames = new ToolNames();
        private String lastUserText;
        private boolean userWasLast;

        Handler(ReadContext ctx) {
            this.ctx = ctx;
        }

        private void emit(HistoryMessage m) {
            userWasLast = false;
            ctx.emit(m);
        }

        @Override
        public void line(ObjectNode n, long offset) {
            Instant ts = Json.instant(n.get("timestamp"));
            ctx.facts.activity(ts);
            String type = Json.str(n, "type");
            JsonNode p = n.get("payload");
            if (type == null || p == null || !p.isObject()) {
                return;
            }
            switch (type) {
                case "session_meta" -> {
                    ctx.facts.sessionId(Json.str(p, "id"));
                    ctx.facts.project(Json.str(p, "cwd"));
                    JsonNode source = p.get("source");
                    if ("subagent".equals(Json.str(p, "thread_source"))
                            || (source != null && source.isObject() && source.has("subagent"))) {
                        ctx.facts.subagent = true;
                    }
                }
                case "turn_context" -> ctx.facts.project(Json.str(p, "cwd"));
                case "event_msg" -> event(p, ts, offset);
                case "response_item" -> item(p, ts, offset);
                default -> {
                }
            }
        }

        private void userPrompt(String id, String text, Instant ts, long offset) {
            if (text == null || text.isBlank()) {
                return;
            }
            if (userWasLast && text.equals(lastUserText)) {
                return;
            }
            emit(HistoryMessage.text(id, ctx.sessionId(), HistoryMessage.USER, HistoryMessage.TEXT, text, ts,
                    offset));
            lastUserText = text;
            userWasLast = true;
        }

        private void event(JsonNode p, Instant ts, long offset) {
            String et = Json.str(p, "type");
            if (et == null) {
                return;
            }
            switch (et) {
                case "user_message" -> {
                    String kind = Json.str(p, "kind");
                    if (kind == null || "plain".equals(kind)) {
                        userPrompt("@" + offset, Json.str(p, "message"), ts, offset);
                    }
                }
                case "item_completed" -> {
                    JsonNode item = p.get("item");
                    if (item != null && "UserMessage".equals(Json.str(item, "type"))) {
                        String id = Json.str(item, "id");
                        userPrompt(id != null ? id : "@" + offset, Json.contentText(item.get("content")), ts,
                                offset);
                    }
                }
                case "token_count" -> {
                    JsonNode total = p.path("info").get("total_token_usage");
                    if (total != null && total.isObject()) {
                        long cached = Json.lng(total, "cached_input_tokens");
                        ctx.facts.absoluteUsage(Json.usage(Math.max(0, Json.lng(total, "input_tokens") - cached),
                                Json.lng(total, "output_tokens"), cached, 0));
                    }
                }
                case "thread_name_updated" -> ctx.facts.title(Json.str(p, "thread_name"), 3);
                case "error", "stream_error" -> {
                    String msg = Json.str(p, "message");
                    if (msg != null) {
                        emit(HistoryMessage.text("@" + offset, ctx.sessionId(), HistoryMessage.SYSTEM,
                                HistoryMessage.ERROR, msg, ts, offset));
                    }
                }
                default -> {
                }
            }
        }

        private void item(JsonNode p, Instant ts, long offset) {
            String it = Json.str(p, "type");
            if (it == null) {
                return;
            }
            String pid = Json.str(p, "id");
            String id = pid != null ? pid : "@" + offset;
            switch (it) {
                case "message" -> {
                    if ("assistant".equals(Json.str(p, "role"))) {
                        String text = Json.contentText(p.get("content"));
                        if (!text.isEmpty()) {
                            emit(HistoryMessage.text(id, ctx.sessionId(), HistoryMessage.ASSISTANT,
                                    HistoryMessage.TEXT, text, ts, offset));
                        }
                    }
                }
                case "reasoning" -> {
                    String text = Json.contentText(p.get("summary"));
                    if (text.isEmpty()) {
                        text = Json.contentText(p.get("content"));
                    }
                    if (!text.isEmpty()) {
                        emit(HistoryMessage.text(id, ctx.sessionId(), HistoryMessage.ASSISTANT,
                                HistoryMessage.THINKING, text, ts, offset));
                    }
                }
                case "function_call" -> {
                    String callId = Json.str(p, "call_id");
                    toolNames.put(callId, Json.str(p, "name"));
                    emit(HistoryMessage.toolCall(id, ctx.sessionId(), Json.str(p, "name"), callId,
                            Json.jsonOrQuoted(Json.str(p, "arguments")), ts, offset));
                }
                case "custom_tool_call" -> {
                    String callId = Json.str(p, "call_id");
                    toolNames.put(callId, Json.str(p, "name"));
                    JsonNode input = p.get("input");
                    emit(HistoryMessage.toolCall(id, ctx.sessionId(), Json.str(p, "name"), callId,
                            input != null && input.isTextual() ? Json.quote(input.textValue()) : Json.json(input),
                            ts, offset));
                }
                case "local_shell_call", "web_search_call" -> {
                    String callId = Json.str(p, "call_id");
                    String name = it.equals("local_shell_call") ? "shell" : "web_search";
                    toolNames.put(callId, name);
                    emit(HistoryMessage.toolCall(id, ctx.sessionId(), name, callId, Json.json(p.get("action")), ts,
                            offset));
                }
                case "function_call_output", "custom_tool_call_output" -> {
                    String callId = Json.str(p, "call_id");
                    JsonNode out = p.get("output");
                    boolean error = false;
                    String text;
                    if (out != null && out.isObject()) {
                        JsonNode success = out.get("success");
                        error = success != null && success.isBoolean() && !success.booleanValue();
                        text = Json.contentText(out.get("content"));
                    } else {
                        text = Json.contentText(out);
                    }
                    emit(HistoryMessage.toolResult(id, ctx.sessionId(), toolNames.get(callId), callId, text, error,
                            ts, offset));
                }
                default -> {
                }
            }
        }
    }
}
