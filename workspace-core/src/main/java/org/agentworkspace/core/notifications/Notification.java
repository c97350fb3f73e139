package org.agentworkspace.core.notifications;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One notification of one user.
 *
 * @param id          increasing across the whole service and across restarts (seeded from the clock), so it doubles
 *                    as the SSE event id of {@code GET /api/events}; written as a decimal string
 * @param projectName the project's name where known, else {@code null}
 * @param sessionId   the provider session where known, else {@code null}
 * @param runId       the run it is about where known, else {@code null}
 * @param read        whether the user marked it read
 */
public record Notification(long id, long userId, NotificationKind kind, String title, String body,
                           String projectName, String sessionId, String runId, Instant createdAt, boolean read) {
    /** Longest title kept. */
    public static final int MAX_TITLE = 120;
    /** Longest body kept (a push message must fit one 4 KiB record). */
    public static final int MAX_BODY = 600;

    public Notification {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(createdAt, "createdAt");
        title = cut(Objects.requireNonNull(title, "title"), MAX_TITLE);
        body = cut(body == null ? "" : body, MAX_BODY);
    }

    public Notification asRead() {
        return read ? this : new Notification(id, userId, kind, title, body, projectName, sessionId, runId, createdAt,
                true);
    }

    /** The wire view (list entries, the SSE {@code notification} event, the push message). */
    public Map<String, Object> view() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", Long.toString(id));
        m.put("kind", kind.wireName());
        m.put("title", title);
        m.put("body", body);
        m.put("projectName", projectName);
        m.put("sessionId", sessionId);
        m.put("runId", runId);
        m.put("createdAt", createdAt.toString());
        m.put("read", read);
        return m;
    }

    private static String cut(String s, int max) {
        String clean = s.replaceAll("[\\p{Cntrl}&&[^\n\t]]", "").strip();
        return clean.length() <= max ? clean : clean.substring(0, max - 1) + "…";
    }
}
