package org.agentworkspace.core.history;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.api.history.SessionSummary;

/**
 * Cursor Agent: {@code ~/.cursor/chats/<md5 of the project path>/<chatId>/store.db}, a SQLite store with
 * {@code meta(key, value)} (key {@code "0"}: hex-encoded JSON {@code {agentId, name, createdAt, …}}) and
 * {@code blobs(id, data)} (content-addressed; JSON blobs are messages {@code {role, content, …}}, binary blobs the
 * tree linking them).
 *
 * <p><b>Not verified against a real CLI</b>: {@code cursor-agent} is not on npm, so this follows
 * research/providers.md §2.4 and is tested on a synthetic store only.
 *
 * <ul>
 *   <li>Session id = the chat folder name. Project: the store does not record the path; it is taken from a
 *       {@code Workspace Path: …} line of the {@code <user_info>} context Cursor puts in the first user message, else
 *       from a known project whose md5 is the folder name (the {@code knownProjects} supplier), else null.</li>
 *   <li>Title = meta {@code name} (rank 3) unless empty; createdAt = meta {@code createdAt}; lastActivity = the
 *       store's modification time (messages carry no timestamps).</li>
 *   <li>Messages: JSON blobs in rowid order (not the blob tree order); role system skipped; user text with the
 *       {@code <user_info>}, {@code <system_reminder>}, {@code <timestamp>} wrappers removed and {@code <user_query>}
 *       unwrapped; assistant {@code text} / {@code reasoning} / {@code tool-call} parts; role tool
 *       {@code tool-result} parts. The offset of an incremental read is the last blob rowid.</li>
 * </ul>
 */
final class CursorHistoryReader implements HistoryReader {
    private static final Pattern WORKSPACE_PATH = Pattern.compile("Workspace Path:\\s*(\\S[^\\r\\n]*)");
    private static final Pattern DROP = Pattern.compile(
            "(?s)<(user_info|system_reminder|timestamp)>.*?</\\1>");
    private static final Pattern QUERY = Pattern.compile("(?s)<user_query>(.*?)</user_query>");

    private final Counters counters = new Counters();
    private final Supplier<? extends Collection<String>> knownProjects;

    CursorHistoryReader(Supplier<? extends Collection<String>> knownProjects) {
        this.knownProjects = knownProjects;
    }

    @Override
    public String provider() {
        return HistoryProviders.CURSOR;
    }

    static Path root(Path home) {
        return home.resolve(".cursor").resolve("chats");
    }

    @Override
    public HistoryStats stats() {
        return counters.snapshot();
    }

    @Override
    public List<SessionFile> discover(Path home) throws IOException {
        List<SessionFile> out = new ArrayList<>();
        Path root = root(home);
        if (!Files.isDirectory(root)) {
            return out;
        }
        try (DirectoryStream<Path> hashes = Files.newDirectoryStream(root, Files::isDirectory)) {
            for (Path h : hashes) {
                try (DirectoryStream<Path> chats = Files.newDirectoryStream(h, Files::isDirectory)) {
                    for (Path chat : chats) {
                        describe(home, chat.resolve("store.db")).ifPresent(out::add);
                    }
                }
            }
        }
        out.sort(Comparator.comparing(SessionFile::modified).reversed());
        return out;
    }

    @Override
    public Optional<SessionFile> describe(Path home, Path file) throws IOException {
        Path root = root(home);
        if (!file.startsWith(root) || root.relativize(file).getNameCount() != 3
                || !"store.db".equals(file.getFileName().toString()) || !Files.isRegularFile(file)) {
            return Optional.empty();
        }
        return Optional.of(new SessionFile(provider(), home, file, file.getParent().getFileName().toString(),
                Sqlite.size(file), Sqlite.modified(file)));
    }

    @Override
    public SessionSummary summarize(SessionFile file) throws IOException {
        return scan(file);
    }

    @Override
    public ReadResult readFrom(SessionFile file, long offset, HistorySink sink) throws IOException {
        ReadContext ctx = new ReadContext(file, sink);
        long next = offset;
        long records = 0;
        long corrupt = 0;
        try (Connection c = Sqlite.open(file.path())) {
            meta(c, ctx);
            ctx.facts.activity(file.modified());
            try (PreparedStatement st = c.prepareStatement(
                    "SELECT rowid, id, data FROM blobs WHERE rowid > ? ORDER BY rowid")) {
                st.setLong(1, offset);
                try (ResultSet rs = st.executeQuery()) {
                    while (rs.next()) {
                        long rowid = rs.getLong(1);
                        next = Math.max(next, rowid);
                        byte[] data = rs.getBytes(3);
                        if (data == null || !startsWithBrace(data)) {
                            continue;
                        }
                        records++;
                        JsonNode blob;
                        try {
                            blob = Json.MAPPER.readTree(data);
                        } catch (IOException e) {
                            corrupt++;
                            continue;
                        }
                        String id = rs.getString(2);
                        message(ctx, id != null ? id : "r" + rowid, blob, rowid);
                    }
                }
            }
        } catch (SQLException e) {
            throw new IOException("cannot read cursor chat " + file.path() + ": " + e.getMessage(), e);
        }
        if (ctx.facts.projectPath == null) {
            ctx.facts.project(projectFromHash(file.path().getParent().getParent().getFileName().toString()));
        }
        ReadResult r = new ReadResult(next, ctx.facts.build(), records, corrupt, 0, false);
        counters.add(r);
        return r;
    }

    private static boolean startsWithBrace(byte[] data) {
        for (byte b : data) {
            if (b == '{') {
                return true;
            }
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return false;
            }
        }
        return false;
    }

    private static void meta(Connection c, ReadContext ctx) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT key, value FROM meta");
                ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
                JsonNode m = decodeMeta(rs.getString(2));
                if (m == null) {
                    continue;
                }
                ctx.facts.title(Json.str(m, "name"), 3);
                ctx.facts.title(Json.str(m, "title"), 3);
                ctx.facts.activity(Json.instant(m.get("createdAt")));
            }
        }
    }

    /** A meta value: hex-encoded JSON, or JSON as is. */
    static JsonNode decodeMeta(String value) {
        if (value == null) {
            return null;
        }
        String json = value.strip();
        if (!json.startsWith("{") && json.length() % 2 == 0 && json.matches("[0-9a-fA-F]+")) {
            json = new String(HexFormat.of().parseHex(json), StandardCharsets.UTF_8);
        }
        try {
            JsonNode n = Json.MAPPER.readTree(json);
            return n != null && n.isObject() ? n : null;
        } catch (IOException e) {
            return null;
        }
    }

    private void message(ReadContext ctx, String id, JsonNode blob, long rowid) {
        JsonNode msg = blob.has("role") ? blob : blob.path("message");
        String role = Json.str(msg, "role");
        JsonNode content = msg.get("content");
        String sid = ctx.sessionId();
        if (role == null || "system".equals(role) || content == null) {
            return;
        }
        switch (role) {
            case "user" -> {
                String raw = Json.contentText(content);
                Matcher wp = WORKSPACE_PATH.matcher(raw);
                if (wp.find()) {
                    ctx.facts.project(wp.group(1).strip());
                }
                String text = QUERY.matcher(DROP.matcher(raw).replaceAll("")).replaceAll("$1").strip();
                if (!text.isEmpty()) {
                    ctx.emit(HistoryMessage.text(id, sid, HistoryMessage.USER, HistoryMessage.TEXT, text, null,
                            rowid));
                }
            }
            case "assistant" -> {
                if (content.isTextual()) {
                    ctx.emit(HistoryMessage.text(id, sid, HistoryMessage.ASSISTANT, HistoryMessage.TEXT,
                            content.textValue(), null, rowid));
                    return;
                }
                int i = 0;
                for (JsonNode part : content) {
                    String pid = i == 0 ? id : id + ":" + i;
                    i++;
                    String type = Json.str(part, "type");
                    if ("text".equals(type)) {
                        ctx.emit(HistoryMessage.text(pid, sid, HistoryMessage.ASSISTANT, HistoryMessage.TEXT,
                                Objects.toString(Json.str(part, "text"), ""), null, rowid));
                    } else if ("reasoning".equals(type)) {
                        ctx.emit(HistoryMessage.text(pid, sid, HistoryMessage.ASSISTANT, HistoryMessage.THINKING,
                                Objects.toString(Json.str(part, "text"), ""), null, rowid));
                    } else if ("tool-call".equals(type) || "tool_use".equals(type)) {
                        JsonNode input = part.has("args") ? part.get("args") : part.get("input");
                        ctx.emit(HistoryMessage.toolCall(pid, sid, Json.str(part, "toolName") != null
                                ? Json.str(part, "toolName") : Json.str(part, "name"),
                                Json.str(part, "toolCallId") != null ? Json.str(part, "toolCallId")
                                        : Json.str(part, "id"), Json.json(input), null, rowid));
                    }
                }
            }
            case "tool" -> {
                int i = 0;
                for (JsonNode part : content) {
                    String pid = i == 0 ? id : id + ":" + i;
                    i++;
                    if ("tool-result".equals(Json.str(part, "type"))) {
                        JsonNode result = part.get("result");
                        ctx.emit(HistoryMessage.toolResult(pid, sid, Json.str(part, "toolName"),
                                Json.str(part, "toolCallId"), result == null ? "" : result.isTextual()
                                        ? result.textValue() : result.toString(), Json.bool(part, "isError"), null,
                                rowid));
                    }
                }
            }
            default -> {
            }
        }
    }

    private String projectFromHash(String hash) {
        Collection<String> known = knownProjects.get();
        if (known == null) {
            return null;
        }
        for (String p : known) {
            if (hash.equalsIgnoreCase(md5(p))) {
                return p;
            }
        }
        return null;
    }

    static String md5(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
