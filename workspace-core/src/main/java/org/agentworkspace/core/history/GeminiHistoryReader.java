package org.agentworkspace.core.history;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.api.history.MessagePage;
import org.agentworkspace.api.history.SessionSummary;

/**
 * Gemini CLI: {@code ~/.gemini/tmp/<folder>/chats/session-*.jsonl} (0.61) or {@code session-*.json} (older).
 *
 * <p>The JSONL form is a log of mutations, not of messages: a header line {@code {sessionId, projectHash,
 * startTime, lastUpdated, kind}} (repeated when the session is resumed), message records {@code {id, timestamp,
 * type, content, …}} (the same id again = the message updated, e.g. with its tool calls), and {@code {"$set": {…}}}
 * patches, where {@code $set.messages} replaces the whole message list (delivered as a {@link HistorySink#reset()}
 * followed by the list). The older JSON form is one document read by {@link GeminiDocuments}.
 *
 * <p>Session id = the header's {@code sessionId} (the file name carries only its first 8 characters); project =
 * {@code .project_root} next to {@code chats/}, else {@code projects.json}; title = a {@code summary} if the CLI
 * wrote one (rank 2), else none; lastActivity = the latest of {@code lastUpdated} and the message timestamps;
 * sub-agent chats ({@code kind} other than {@code main}) are flagged.
 */
final class GeminiHistoryReader extends JsonlHistoryReader {
    private final String provider;
    private final String cliDirName;

    GeminiHistoryReader() {
        this(HistoryProviders.GEMINI, ".gemini");
    }

    /** For a Gemini fork with the same layout under {@code ~/<cliDirName>}. */
    GeminiHistoryReader(String provider, String cliDirName) {
        this.provider = provider;
        this.cliDirName = cliDirName;
    }

    @Override
    public String provider() {
        return provider;
    }

    Path cliDir(Path home) {
        return home.resolve(cliDirName);
    }

    @Override
    public List<SessionFile> discover(Path home) throws IOException {
        return newestFirst(home);
    }

    @Override
    public void forEachFile(Path home, java.util.function.Consumer<SessionFile> action) throws IOException {
        for (Path f : GeminiLayout.chatFiles(cliDir(home))) {
            describe(home, f).ifPresent(action);
        }
    }

    @Override
    public Optional<SessionFile> describe(Path home, Path file) throws IOException {
        if (!GeminiLayout.inLayout(cliDir(home), file) || !GeminiLayout.hasChatName(file)) {
            return Optional.empty();
        }
        String n = file.getFileName().toString();
        Optional<SessionFile> f = regularSessionFile(provider, home, file, n.substring(0, n.lastIndexOf('.')));
        if (f.isEmpty()) {
            return f;
        }
        String id = GeminiLayout.sessionIdOf(file);
        SessionFile s = f.get();
        return Optional.of(id == null ? s : new SessionFile(s.provider(), s.home(), s.path(), id, s.size(),
                s.modified()));
    }

    static boolean isDocument(SessionFile f) {
        return f.path().getFileName().toString().endsWith(".json");
    }

    @Override
    boolean redeliversIds() {
        return true;
    }

    @Override
    void prime(ReadContext ctx) {
        ctx.facts.project(GeminiLayout.projectOf(cliDir(ctx.file.home()), ctx.file.path()));
    }

    @Override
    public ReadResult readFrom(SessionFile file, long offset, HistorySink sink) throws IOException {
        if (!isDocument(file)) {
            return super.readFrom(file, offset, sink);
        }
        ReadResult r = GeminiDocuments.read(new ReadContext(file, sink, true), offset, this::prime);
        counters.add(r);
        return r;
    }

    @Override
    public SessionSummary summarize(SessionFile file) throws IOException {
        if (isDocument(file)) {
            return scan(file);
        }
        return super.summarize(file);
    }

    @Override
    public boolean rereadsRecords(SessionFile file) {
        return !isDocument(file);
    }

    @Override
    public SessionSummary peek(SessionFile file) throws IOException {
        if (isDocument(file)) {
            return scan(file);
        }
        return super.peek(file);
    }

    /** Gemini re-delivers ids (updates, rewrites), so the pager tracks them. */
    @Override
    public MessagePage messages(SessionFile file, int limit, int offset) throws IOException {
        if (limit < 0 || offset < 0) {
            throw new IllegalArgumentException("limit and offset must not be negative");
        }
        TailPager pager = new TailPager((long) limit + offset, true);
        readFrom(file, 0, pager);
        return pager.page(limit, offset);
    }

    @Override
    Set<String> fields() {
        return null;
    }

    @Override
    LineHandler handler(ReadContext ctx) {
        return (n, offset) -> line(ctx, n, offset);
    }

    private static void line(ReadContext ctx, ObjectNode n, long offset) {
        JsonNode set = n.get("$set");
        if (set != null && set.isObject()) {
            ctx.facts.sessionId(Json.str(set, "sessionId"));
            ctx.facts.activity(Json.instant(set.get("lastUpdated")));
            ctx.facts.title(Json.str(set, "summary"), 2);
            JsonNode messages = set.get("messages");
            if (messages != null && messages.isArray()) {
                ctx.reset();
                for (JsonNode m : messages) {
                    GeminiMessages.emit(ctx, m, offset);
                }
            }
            return;
        }
        if (n.has("type")) {
            GeminiMessages.emit(ctx, n, offset);
            return;
        }
        if (n.has("sessionId")) {
            ctx.facts.sessionId(Json.str(n, "sessionId"));
            ctx.facts.activity(Json.instant(n.get("startTime")));
            ctx.facts.activity(Json.instant(n.get("lastUpdated")));
            ctx.facts.title(Json.str(n, "summary"), 2);
            String kind = Json.str(n, "kind");
            if (kind != null && !"main".equals(kind)) {
                ctx.facts.subagent = true;
            }
        }
    }
}
