package org.agentworkspace.core.index;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.MessagePage;
import org.agentworkspace.core.history.HistoryReader;
import org.agentworkspace.core.history.HistoryReaders;
import org.agentworkspace.core.history.SessionFile;
import org.agentworkspace.core.store.Store;

import static org.agentworkspace.core.index.IndexState.key;
import static org.agentworkspace.core.index.IndexState.len;
import static org.agentworkspace.core.index.IndexState.sessionNotFound;
import static org.agentworkspace.core.index.IndexState.usage;

/** Pages of a session's messages from the {@link HistoryIndex}, clipped tool payloads completed from the file. */
final class MessagePages {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    private final IndexState st;
    private final IndexSessions sessions;
    private final Store store;
    private final HistoryReaders readers;

    MessagePages(IndexState st, IndexSessions sessions) {
        this.st = st;
        this.sessions = sessions;
        this.store = st.store;
        this.readers = st.readers;
    }

    /**
     * A page of a session's messages, counted back from the newest (docs/history.md, "Paging direction"). A session
     * whose messages are not indexed yet is read from its file.
     *
     * @param provider null for any provider
     */
    MessagePage messages(String projectName, String sessionId, String provider, int limit, int offset) {
        if (limit < 0 || offset < 0) {
            throw WorkspaceException.Validation.of("limit and offset must not be negative");
        }
        IndexSessions.Row row = sessions.findSession(projectName, sessionId, provider);
        if (row.offset() < 0) {
            SessionFile f = new SessionFile(row.provider(), row.home(), Path.of(row.path()), row.sessionId(),
                    row.size(), Instant.ofEpochMilli(row.mtime()));
            try {
                return readers.get(row.provider()).messages(f, limit, offset);
            } catch (IOException e) {
                throw sessionNotFound();
            }
        }
        List<Long> sources = new ArrayList<>();
        MessagePage stored = store.read(h -> {
            int total = (int) Math.min(Integer.MAX_VALUE, row.messages());
            if (limit == 0 || offset >= total) {
                return new MessagePage(List.of(), total, false, offset, limit);
            }
            List<HistoryMessage> page = new ArrayList<>(h.createQuery("SELECT * FROM history_messages WHERE "
                            + "session_key = :k ORDER BY position DESC LIMIT :l OFFSET :o").bind("k", row.key())
                    .bind("l", limit).bind("o", offset)
                    .map((rs, ctx) -> {
                        long src = rs.getLong("src_offset");
                        sources.add(rs.wasNull() ? -1 : src);
                        return new HistoryMessage(rs.getString("msg_id"), row.sessionId(), rs.getString("role"),
                                rs.getString("kind"), rs.getString("text"), rs.getString("tool_name"),
                                rs.getString("tool_call_id"), rs.getString("tool_input"), rs.getString("tool_output"),
                                rs.getInt("tool_error") != 0,
                                rs.getObject("ts") == null ? null : Instant.ofEpochMilli(rs.getLong("ts")),
                                usage(rs.getString("usage_json")), -1);
                    }).list());
            Collections.reverse(page);
            Collections.reverse(sources);
            boolean more = total - offset - page.size() > 0;
            return new MessagePage(page, total, more, offset, limit);
        });
        if (sources.stream().anyMatch(o -> o >= 0)) {
            return new MessagePage(completeClipped(row, stored.messages(), sources), stored.total(), stored.hasMore(),
                    stored.offset(), stored.limit());
        }
        return stored;
    }

    /**
     * Completes the clipped tool payloads of a page from the session's file: each clipped message's record is read
     * again on its own; when a record no longer yields the message (the file was rewritten, or the message depends
     * on earlier records) the file is read once from the start instead. Messages that cannot be completed keep what
     * the index holds.
     */
    private List<HistoryMessage> completeClipped(IndexSessions.Row row, List<HistoryMessage> page, List<Long> sources) {
        SessionFile f = new SessionFile(row.provider(), row.home(), Path.of(row.path()), row.sessionId(), row.size(),
                Instant.ofEpochMilli(row.mtime()));
        HistoryReader reader = readers.get(row.provider());
        List<HistoryMessage> out = new ArrayList<>(page);
        Map<Long, Map<String, HistoryMessage>> records = new HashMap<>();
        Map<String, Integer> missing = new HashMap<>();
        for (int i = 0; i < out.size(); i++) {
            long src = sources.get(i);
            if (src < 0) {
                continue;
            }
            HistoryMessage m = out.get(i);
            Map<String, HistoryMessage> record = records.computeIfAbsent(src, o -> {
                RecordKey rk = new RecordKey(f.path().toString(), o, f.size(), f.modified().toEpochMilli());
                Map<String, HistoryMessage> cached = recordCache.get(rk);
                if (cached != null) {
                    return cached;
                }
                Map<String, HistoryMessage> byId = new HashMap<>();
                try {
                    for (HistoryMessage r : reader.recordAt(f, o)) {
                        byId.put(r.id(), r);
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.log(Level.DEBUG, "cannot re-read {0} at {1}: {2}", f.path(), o, e.toString());
                    return byId;
                }
                recordCache.put(rk, byId);
                return byId;
            });
            HistoryMessage whole = record.get(m.id());
            if (whole != null && sameCall(m, whole)) {
                out.set(i, withTools(m, whole));
            } else {
                missing.put(m.id(), i);
            }
        }
        if (!missing.isEmpty()) {
            try {
                reader.readFrom(f, 0, msg -> {
                    Integer at = missing.get(msg.id());
                    if (at != null && sameCall(out.get(at), msg)) {
                        out.set(at, withTools(out.get(at), msg));
                    }
                });
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.DEBUG, "cannot read {0} to complete tool payloads: {1}", f.path(), e.toString());
            }
        }
        return out;
    }

    /** A record of a session file as it was at a given size and mtime (any change to the file is another key). */
    private record RecordKey(String path, long offset, long size, long mtime) {
    }

    /**
     * Records re-read to complete clipped tool payloads, least recently used first out, bounded by their chars:
     * clients re-read the newest page of an open session often, and its records are the expensive part of it.
     */
    private static final class RecordCache {
        private final long maxChars;
        private long chars;
        private final LinkedHashMap<RecordKey, Map<String, HistoryMessage>> map = new LinkedHashMap<>(64, 0.75f, true);

        RecordCache(long maxChars) {
            this.maxChars = maxChars;
        }

        synchronized Map<String, HistoryMessage> get(RecordKey k) {
            return map.get(k);
        }

        synchronized void put(RecordKey k, Map<String, HistoryMessage> record) {
            long size = size(record);
            if (size > maxChars / 4) {
                return;
            }
            Map<String, HistoryMessage> old = map.put(k, record);
            chars += size - (old == null ? 0 : size(old));
            var it = map.entrySet().iterator();
            while (chars > maxChars && it.hasNext()) {
                chars -= size(it.next().getValue());
                it.remove();
            }
        }

        private static long size(Map<String, HistoryMessage> record) {
            long n = 64;
            for (HistoryMessage m : record.values()) {
                n += len(m.text()) + len(m.toolInputJson()) + len(m.toolOutput()) + 64;
            }
            return n;
        }
    }

    private final RecordCache recordCache = new RecordCache(RECORD_CACHE_CHARS);

    /** Chars of re-read records kept (see {@link RecordCache}). */
    private static final long RECORD_CACHE_CHARS = 2L * 1024 * 1024;

    private static boolean sameCall(HistoryMessage stored, HistoryMessage read) {
        return java.util.Objects.equals(stored.kind(), read.kind())
                && java.util.Objects.equals(stored.toolCallId(), read.toolCallId());
    }

    private static HistoryMessage withTools(HistoryMessage m, HistoryMessage whole) {
        return new HistoryMessage(m.id(), m.sessionId(), m.role(), m.kind(), m.text(), m.toolName(), m.toolCallId(),
                whole.toolInputJson(), whole.toolOutput(), m.toolError(), m.timestamp(), m.usage(), m.nativeOffset());
    }
}
