package org.agentworkspace.core.history;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.api.history.SessionSummary;
import org.agentworkspace.api.history.Usage;

/**
 * OpenCode (1.18): every session of every project in one SQLite database
 * {@code ~/.local/share/opencode/opencode.db} (WAL mode: the {@code -wal} file holds recent commits), opened
 * read-only. Tables used: {@code session(id, project_id, parent_id, directory, title, time_created, time_updated,
 * time_archived, tokens_*)}, {@code project(id, worktree)}, {@code message(id, session_id, time_created,
 * time_updated, data JSON{role, tokens, error, …})} and {@code part(id, message_id, session_id, time_created,
 * time_updated, data JSON{type, …})}.
 *
 * <ul>
 *   <li>Project = {@code session.directory}, else the project's {@code worktree}; title = {@code session.title}
 *       unless it is the CLI's placeholder ({@code "New session - <date>"}); lastActivity = {@code time_updated};
 *       child sessions ({@code parent_id}) are flagged sub-agent; archived sessions are not discovered.</li>
 *   <li>Messages: one per part, ordered by message then part: {@code text} → text with the message's role (the
 *       CLI stores user prompts as a JSON string literal, which is unquoted; {@code synthetic} parts → system other),
 *       {@code reasoning} → thinking, {@code tool} → tool_call plus a tool_result once its state is completed or
 *       error, {@code file} → other; step, snapshot and patch parts are skipped; an assistant message's
 *       {@code error} → system error. Usage = the assistant message's {@code tokens}, on its first part.</li>
 *   <li>Incremental reads: the offset is a {@code time_updated} watermark (epoch ms); rows updated at or after it
 *       are delivered again (same ids: replace in place).</li>
 * </ul>
 */
final class OpenCodeHistoryReader implements HistoryReader {
    private static final Pattern PLACEHOLDER_TITLE = Pattern.compile("^(New|Child) session - \\d{4}-.*");

    private final Counters counters = new Counters();

    @Override
    public String provider() {
        return HistoryProviders.OPENCODE;
    }

    static Path database(Path home) {
        return home.resolve(".local").resolve("share").resolve("opencode").resolve("opencode.db");
    }

    @Override
    public HistoryStats stats() {
        return counters.snapshot();
    }

    @Override
    public List<SessionFile> discover(Path home) throws IOException {
        Path db = database(home);
        List<SessionFile> out = new ArrayList<>();
        if (!Files.isRegularFile(db)) {
            return out;
        }
        long size = Sqlite.size(db);
        try (Connection c = Sqlite.open(db);
                PreparedStatement st = c.prepareStatement(
                        "SELECT id, time_updated FROM session WHERE time_archived IS NULL ORDER BY time_updated DESC");
                ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
                Instant mod = Json.epoch(rs.getLong(2));
                out.add(new SessionFile(provider(), home, db, rs.getString(1), size,
                        mod != null ? mod : Sqlite.modified(db)));
            }
        } catch (SQLException e) {
            throw new IOException("cannot list opencode sessions in " + db + ": " + e.getMessage(), e);
        }
        return out;
    }

    @Override
    public Optional<SessionFile> describe(Path home, Path file) {
        return Optional.empty();
    }

    /** Facts from the session row (and its project). */
    private static void sessionFacts(Connection c, ReadContext ctx) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT * FROM session WHERE id = ?")) {
            st.setString(1, ctx.sessionId());
            try (ResultSet rs = st.executeQuery()) {
                if (!rs.next()) {
                    return;
                }
                Map<String, Object> row = Sqlite.row(rs);
                ctx.facts.sessionId(Sqlite.str(row, "id"));
                ctx.facts.project(Sqlite.str(row, "directory"));
                String title = Sqlite.str(row, "title");
                if (title != null && !PLACEHOLDER_TITLE.matcher(title).matches()) {
                    ctx.facts.title(title, 2);
                }
                ctx.facts.activity(Json.epoch(Sqlite.lng(row, "time_created")));
                ctx.facts.activity(Json.epoch(Sqlite.lng(row, "time_updated")));
                if (Sqlite.str(row, "parent_id") != null) {
                    ctx.facts.subagent = true;
                }
                if (row.containsKey("tokens_input")) {
                    ctx.facts.absoluteUsage(Json.usage(Sqlite.lng(row, "tokens_input"),
                            Sqlite.lng(row, "tokens_output") + Sqlite.lng(row, "tokens_reasoning"),
                            Sqlite.lng(row, "tokens_cache_read"), Sqlite.lng(row, "tokens_cache_write")));
                }
                String projectId = Sqlite.str(row, "project_id");
                if (ctx.facts.projectPath == null && projectId != null) {
                    try (PreparedStatement ps = c.prepareStatement("SELECT worktree FROM project WHERE id = ?")) {
                        ps.setString(1, projectId);
                        try (ResultSet prs = ps.executeQuery()) {
                            if (prs.next()) {
                                ctx.facts.project(prs.getString(1));
                            }
                        }
                    }
                }
            }
        }
    }

    @Override
    public SessionSummary summarize(SessionFile file) throws IOException {
        ReadContext ctx = new ReadContext(file, HistorySink.discard());
        try (Connection c = Sqlite.open(file.path())) {
            sessionFacts(c, ctx);
            try (PreparedStatement st = c.prepareStatement("""
                    SELECT p.data FROM message m JOIN part p ON p.message_id = m.id
                    WHERE m.session_id = ? AND json_extract(m.data, '$.role') = 'user'
                      AND json_extract(p.data, '$.type') = 'text'
                    ORDER BY m.time_created, m.id, p.id LIMIT 5""")) {
                st.setString(1, file.sessionId());
                try (ResultSet rs = st.executeQuery()) {
                    while (rs.next() && ctx.facts.firstPrompt == null) {
                        JsonNode part = parse(rs.getString(1));
                        if (part != null && !Json.bool(part, "synthetic")) {
                            String text = unquote(Json.str(part, "text"));
                            if (text != null && !text.isBlank()) {
                                ctx.facts.firstPrompt = text;
                            }
                        }
                    }
                }
            }
        } catch (SQLException e) {
            throw new IOException("cannot read opencode session " + file.sessionId() + ": " + e.getMessage(), e);
        }
        return ctx.facts.build().toSummary(file, false);
    }

    @Override
    public ReadResult readFrom(SessionFile file, long offset, HistorySink sink) throws IOException {
        ReadContext ctx = new ReadContext(file, sink);
        long watermark = offset;
        long records = 0;
        long corrupt = 0;
        try (Connection c = Sqlite.open(file.path())) {
            sessionFacts(c, ctx);
            try (PreparedStatement st = c.prepareStatement("""
                    SELECT m.id, m.time_created, m.time_updated, m.data,
                           p.id, p.time_created, p.time_updated, p.data, p.rowid
                    FROM message m LEFT JOIN part p ON p.message_id = m.id
                    WHERE m.session_id = ? AND (m.time_updated >= ? OR p.time_updated >= ?)
                    ORDER BY m.time_created, m.id, p.id""")) {
                st.setString(1, file.sessionId());
                st.setLong(2, offset);
                st.setLong(3, offset);
                try (ResultSet rs = st.executeQuery()) {
                    MessageState current = null;
                    while (rs.next()) {
                        String messageId = rs.getString(1);
                        watermark = Math.max(watermark, rs.getLong(3));
                        if (current == null || !current.id.equals(messageId)) {
                            if (current != null) {
                                current.finish(ctx);
                            }
                            records++;
                            JsonNode data = parse(rs.getString(4));
                            if (data == null) {
                                corrupt++;
                            }
                            current = new MessageState(messageId, data, Json.epoch(rs.getLong(2)));
                        }
                        String partId = rs.getString(5);
                        if (partId == null) {
                            continue;
                        }
                        records++;
                        watermark = Math.max(watermark, rs.getLong(7));
                        JsonNode part = parse(rs.getString(8));
                        if (part == null) {
                            corrupt++;
                            continue;
                        }
                        Instant ts = Json.epoch(rs.getLong(6));
                        current.part(ctx, partId, part, ts != null ? ts : current.created, rs.getLong(9));
                    }
                    if (current != null) {
                        current.finish(ctx);
                    }
                }
            }
        } catch (SQLException e) {
            throw new IOException("cannot read opencode session " + file.sessionId() + ": " + e.getMessage(), e);
        }
        ReadResult r = new ReadResult(watermark, ctx.facts.build(), records, corrupt, 0, false);
        counters.add(r);
        return r;
    }

    private static JsonNode parse(String json) {
        if (json == null) {
            return null;
        }
        try {
            JsonNode n = Json.MAPPER.readTree(json);
            return n != null && n.isObject() ? n : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Unquotes a prompt stored as a JSON string literal ({@code "\"hello\""} → {@code hello}). */
    static String unquote(String text) {
        if (text != null && text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"")) {
            try {
                JsonNode n = Json.MAPPER.readTree(text);
                if (n != null && n.isTextual()) {
                    return n.textValue();
                }
            } catch (IOException e) {
                return text;
            }
        }
        return text;
    }

    /** One message of the join while its parts stream by. */
    private static final class MessageState {
        final String id;
        final JsonNode data;
        final Instant created;
        final String role;
        Usage pendingUsage;

        MessageState(String id, JsonNode data, Instant created) {
            this.id = id;
            this.data = data;
            this.created = created;
            this.role = data == null ? null : Json.str(data, "role");
            JsonNode tokens = data == null ? null : data.get("tokens");
            if ("assistant".equals(role) && tokens != null && tokens.isObject()) {
                JsonNode cache = tokens.get("cache");
                pendingUsage = Json.usage(Json.lng(tokens, "input"),
                        Json.lng(tokens, "output") + Json.lng(tokens, "reasoning"), Json.lng(cache, "read"),
                        Json.lng(cache, "write"));
            }
        }

        private void emit(ReadContext ctx, HistoryMessage m) {
            if (pendingUsage != null) {
                m = m.withUsage(pendingUsage);
                pendingUsage = null;
            }
            ctx.emit(m);
        }

        void part(ReadContext ctx, String partId, JsonNode p, Instant ts, long rowid) {
            String sid = ctx.sessionId();
            String type = Json.str(p, "type");
            if (type == null) {
                return;
            }
            boolean user = "user".equals(role);
            switch (type) {
                case "text" -> {
                    String text = Json.str(p, "text");
                    if (text == null) {
                        return;
                    }
                    if (Json.bool(p, "synthetic") || Json.bool(p, "ignored")) {
                        emit(ctx, HistoryMessage.text(partId, sid, HistoryMessage.SYSTEM, HistoryMessage.OTHER, text,
                                ts, rowid));
                    } else if (user) {
                        emit(ctx, HistoryMessage.text(partId, sid, HistoryMessage.USER, HistoryMessage.TEXT,
                                unquote(text), ts, rowid));
                    } else {
                        emit(ctx, HistoryMessage.text(partId, sid, HistoryMessage.ASSISTANT, HistoryMessage.TEXT,
                                text, ts, rowid));
                    }
                }
                case "reasoning" -> emit(ctx, HistoryMessage.text(partId, sid, HistoryMessage.ASSISTANT,
                        HistoryMessage.THINKING, Json.str(p, "text") == null ? "" : Json.str(p, "text"), ts, rowid));
                case "tool" -> {
                    String tool = Json.str(p, "tool");
                    String callId = Json.str(p, "callID");
                    JsonNode state = p.get("state");
                    emit(ctx, HistoryMessage.toolCall(partId, sid, tool, callId, Json.json(state == null ? null
                            : state.get("input")), ts, rowid));
                    String status = Json.str(state, "status");
                    if ("completed".equals(status) || "error".equals(status)) {
                        boolean error = "error".equals(status);
                        String out = error ? Json.str(state, "error") : Json.str(state, "output");
                        Instant end = state.path("time").has("end") ? Json.instant(state.path("time").get("end"))
                                : ts;
                        emit(ctx, HistoryMessage.toolResult(partId + ":result", sid, tool, callId, out, error, end,
                                rowid));
                    }
                }
                case "file" -> {
                    String name = Json.str(p, "filename");
                    emit(ctx, HistoryMessage.text(partId, sid, user ? HistoryMessage.USER : HistoryMessage.ASSISTANT,
                            HistoryMessage.OTHER, "[file: " + (name != null ? name : Json.str(p, "url")) + "]", ts,
                            rowid));
                }
                default -> {
                }
            }
        }

        void finish(ReadContext ctx) {
            JsonNode error = data == null ? null : data.get("error");
            if (error != null && error.isObject()) {
                String msg = Json.str(error.path("data"), "message");
                if (msg == null) {
                    msg = Json.str(error, "name");
                }
                ctx.emit(HistoryMessage.text(id + ":error", ctx.sessionId(), HistoryMessage.SYSTEM,
                        HistoryMessage.ERROR, msg == null ? error.toString() : msg, created, -1));
            }
        }
    }
}
