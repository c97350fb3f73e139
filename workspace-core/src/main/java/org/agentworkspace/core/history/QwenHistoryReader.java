package org.agentworkspace.core.history;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.api.history.MessagePage;
import org.agentworkspace.api.history.SessionSummary;
import org.agentworkspace.api.history.Usage;

/**
 * Qwen Code: {@code ~/.qwen/projects/<sanitised cwd>/chats/<sessionId>.jsonl} (0.24), one record per line
 * {@code {uuid, parentUuid, sessionId, timestamp, type, provenance, cwd, message:{role, parts}, …}}; older versions'
 * Gemini-style chats under {@code ~/.qwen/tmp/<folder>/chats/*.json} are read like gemini's.
 *
 * <ul>
 *   <li>Session id = file name; project = the first {@code cwd}.</li>
 *   <li>Title = the last {@code system}/{@code custom_title} record's {@code systemPayload.customTitle} (the CLI
 *       re-anchors it at the end of the file).</li>
 *   <li>{@code user}: text parts ({@code systemPayload.displayText} when present) → user text when
 *       {@code provenance} is {@code real_user} or absent, else system other (notifications the CLI injected);
 *       {@code assistant}: text parts → text ({@code thought:true} → thinking), {@code functionCall} → tool_call,
 *       {@code usageMetadata} → usage; {@code tool_result}: {@code functionResponse} parts → tool_result (error when
 *       {@code toolCallResult.status} is error); other {@code system} records (telemetry, snapshots) are skipped.</li>
 * </ul>
 */
final class QwenHistoryReader extends JsonlHistoryReader {
    private static final Set<String> FIELDS = Set.of("uuid", "sessionId", "timestamp", "type", "subtype",
            "provenance", "cwd", "message", "usageMetadata", "systemPayload", "toolCallResult");

    private final GeminiHistoryReader legacy = new GeminiHistoryReader(HistoryProviders.QWEN, ".qwen");

    @Override
    public String provider() {
        return HistoryProviders.QWEN;
    }

    static Path root(Path home) {
        return home.resolve(".qwen").resolve("projects");
    }

    @Override
    public List<SessionFile> discover(Path home) throws IOException {
        List<SessionFile> out = new ArrayList<>();
        Path root = root(home);
        if (Files.isDirectory(root)) {
            try (DirectoryStream<Path> projects = Files.newDirectoryStream(root, Files::isDirectory)) {
                for (Path dir : projects) {
                    Path chats = dir.resolve("chats");
                    if (!Files.isDirectory(chats)) {
                        continue;
                    }
                    try (DirectoryStream<Path> files = Files.newDirectoryStream(chats, "*.jsonl")) {
                        for (Path f : files) {
                            describe(home, f).ifPresent(out::add);
                        }
                    }
                }
            }
        }
        out.addAll(legacy.discover(home));
        out.sort(Comparator.comparing(SessionFile::modified).reversed());
        return out;
    }

    @Override
    public Optional<SessionFile> describe(Path home, Path file) throws IOException {
        Path root = root(home);
        String name = file.getFileName().toString();
        if (file.startsWith(root) && root.relativize(file).getNameCount() == 3 && name.endsWith(".jsonl")
                && "chats".equals(file.getParent().getFileName().toString()) && Files.isRegularFile(file)) {
            return Optional.of(sessionFile(provider(), home, file,
                    name.substring(0, name.length() - ".jsonl".length())));
        }
        return legacy.describe(home, file);
    }

    private boolean isLegacy(SessionFile f) {
        return !f.path().startsWith(root(f.home()));
    }

    @Override
    public ReadResult readFrom(SessionFile file, long offset, HistorySink sink) throws IOException {
        if (isLegacy(file)) {
            ReadResult r = legacy.readFrom(file, offset, sink);
            counters.add(r);
            return r;
        }
        return super.readFrom(file, offset, sink);
    }

    @Override
    public SessionSummary summarize(SessionFile file) throws IOException {
        return isLegacy(file) ? legacy.summarize(file) : super.summarize(file);
    }

    @Override
    public SessionSummary peek(SessionFile file) throws IOException {
        return isLegacy(file) ? legacy.peek(file) : super.peek(file);
    }

    @Override
    public boolean rereadsRecords(SessionFile file) {
        return !isLegacy(file) && super.rereadsRecords(file);
    }

    @Override
    public MessagePage messages(SessionFile file, int limit, int offset) throws IOException {
        return isLegacy(file) ? legacy.messages(file, limit, offset) : super.messages(file, limit, offset);
    }

    @Override
    Set<String> fields() {
        return FIELDS;
    }

    @Override
    LineHandler handler(ReadContext ctx) {
        return new Handler(ctx);
    }

    private static final class Handler implements LineHandler {
        private final ReadContext ctx;
        private final ToolNames toolNames = new ToolNames();

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
            String uuid = Json.str(n, "uuid");
            String id = uuid != null ? uuid : "@" + offset;
            JsonNode parts = n.path("message").get("parts");
            switch (type) {
                case "user" -> user(n, parts, id, ts, offset);
                case "assistant" -> assistant(n, parts, id, ts, offset);
                case "tool_result" -> toolResult(n, parts, id, ts, offset);
                case "system" -> {
                    if ("custom_title".equals(Json.str(n, "subtype"))) {
                        ctx.facts.title(Json.str(n.get("systemPayload"), "customTitle"), 3);
                    }
                }
                default -> {
                }
            }
        }

        private static String sub(String id, int i) {
            return i == 0 ? id : id + ":" + i;
        }

        private void user(ObjectNode n, JsonNode parts, String id, Instant ts, long offset) {
            String display = Json.str(n.get("systemPayload"), "displayText");
            String text = display != null && !display.isBlank() ? display : Json.contentText(textParts(parts));
            if (text.isBlank()) {
                return;
            }
            String provenance = Json.str(n, "provenance");
            boolean real = provenance == null || "real_user".equals(provenance);
            ctx.emit(HistoryMessage.text(id, ctx.sessionId(), real ? HistoryMessage.USER : HistoryMessage.SYSTEM,
                    real ? HistoryMessage.TEXT : HistoryMessage.OTHER, text, ts, offset));
        }

        private static JsonNode textParts(JsonNode parts) {
            if (parts == null || !parts.isArray()) {
                return parts;
            }
            com.fasterxml.jackson.databind.node.ArrayNode out = Json.MAPPER.createArrayNode();
            for (JsonNode p : parts) {
                if (p.has("text") && !Json.bool(p, "thought")) {
                    out.add(p);
                }
            }
            return out;
        }

        private void assistant(ObjectNode n, JsonNode parts, String id, Instant ts, long offset) {
            List<HistoryMessage> out = new ArrayList<>();
            if (parts != null && parts.isArray()) {
                int i = 0;
                for (JsonNode p : parts) {
                    JsonNode call = p.get("functionCall");
                    if (call != null && call.isObject()) {
                        String callId = Json.str(call, "id");
                        toolNames.put(callId, Json.str(call, "name"));
                        out.add(HistoryMessage.toolCall(sub(id, i++), ctx.sessionId(), Json.str(call, "name"),
                                callId, Json.json(call.get("args")), ts, offset));
                    } else if (p.has("text")) {
                        out.add(HistoryMessage.text(sub(id, i++), ctx.sessionId(), HistoryMessage.ASSISTANT,
                                Json.bool(p, "thought") ? HistoryMessage.THINKING : HistoryMessage.TEXT,
                                p.get("text").asText(), ts, offset));
                    }
                }
            }
            JsonNode um = n.get("usageMetadata");
            Usage usage = null;
            if (um != null && um.isObject()) {
                long cached = Json.lng(um, "cachedContentTokenCount");
                usage = Json.usage(Math.max(0, Json.lng(um, "promptTokenCount") - cached),
                        Json.lng(um, "candidatesTokenCount"), cached, 0);
            }
            for (int k = 0; k < out.size(); k++) {
                ctx.emit(k == 0 && usage != null ? out.get(k).withUsage(usage) : out.get(k));
            }
        }

        private void toolResult(ObjectNode n, JsonNode parts, String id, Instant ts, long offset) {
            if (parts == null || !parts.isArray()) {
                return;
            }
            JsonNode callResult = n.get("toolCallResult");
            String status = Json.str(callResult, "status");
            boolean error = "error".equals(status) || "cancelled".equals(status);
            int i = 0;
            for (JsonNode p : parts) {
                JsonNode fr = p.get("functionResponse");
                if (fr == null || !fr.isObject()) {
                    continue;
                }
                JsonNode response = fr.get("response");
                String output = Json.str(response, "output");
                if (output == null) {
                    output = Json.str(response, "error");
                }
                if (output == null) {
                    output = response == null ? "" : response.toString();
                }
                String callId = Json.str(fr, "id");
                String name = Json.str(fr, "name");
                ctx.emit(HistoryMessage.toolResult(sub(id, i++), ctx.sessionId(),
                        name != null ? name : toolNames.get(callId), callId, output, error, ts, offset));
            }
        }
    }
}
