package org.agentworkspace.core.runs;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One page of {@link RunEngine#page(Query)}: newest first, keyset-paged on (created_at, id), so page n costs what
 * page 1 costs and a run started meanwhile never shifts a page.
 *
 * @param runs       this page
 * @param nextCursor the opaque cursor of the next page, or {@code null} when this was the last
 */
public record RunPage(List<RunRecord> runs, String nextCursor) {
    public RunPage {
        runs = List.copyOf(runs);
    }

    /**
     * @param visibleTo only the runs of this account; {@code null} for every run (an administrator)
     * @param statuses  only these statuses; empty for all
     * @param project   only runs of this project, or {@code null}
     * @param taskId    only runs of this task, or {@code null}
     * @param sessionId only runs of this CLI session, or {@code null}
     * @param provider  only runs of this provider, or {@code null}
     * @param cursor    a {@link RunPage#nextCursor()} to continue after, or {@code null} for the newest
     * @param limit     1..1000
     */
    public record Query(Long visibleTo, Set<RunStatus> statuses, String project, String taskId, String sessionId,
                        String provider, String cursor, int limit) {
        public Query {
            statuses = statuses == null || statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
            if (limit < 1 || limit > 1000) {
                throw new IllegalArgumentException("limit must be 1..1000");
            }
            if (cursor != null) {
                decode(cursor);
            }
        }

        /** The {@code limit} newest runs of every account. */
        public static Query newest(int limit) {
            return new Query(null, Set.of(), null, null, null, null, null, limit);
        }

        public Query visibleTo(Long account) {
            return new Query(account, statuses, project, taskId, sessionId, provider, cursor, limit);
        }

        public Query withStatuses(Set<RunStatus> s) {
            return new Query(visibleTo, s, project, taskId, sessionId, provider, cursor, limit);
        }

        public Query withProject(String p) {
            return new Query(visibleTo, statuses, p, taskId, sessionId, provider, cursor, limit);
        }

        public Query withTask(String t) {
            return new Query(visibleTo, statuses, project, t, sessionId, provider, cursor, limit);
        }

        public Query withSession(String s) {
            return new Query(visibleTo, statuses, project, taskId, s, provider, cursor, limit);
        }

        public Query withProvider(String p) {
            return new Query(visibleTo, statuses, project, taskId, sessionId, p, cursor, limit);
        }

        /** Continues after {@code c}; a cursor that is not one of ours is refused ({@link IllegalArgumentException}). */
        public Query after(String c) {
            return new Query(visibleTo, statuses, project, taskId, sessionId, provider, c, limit);
        }
    }

    /** The position after which a page continues. */
    record Position(long createdAt, String id) {
    }

    static String encode(RunInfo last) {
        String raw = last.createdAt().toEpochMilli() + ":" + last.id();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    static Position decode(String cursor) {
        Optional<Position> p = tryDecode(cursor);
        return p.orElseThrow(() -> new IllegalArgumentException("not a run cursor"));
    }

    private static Optional<Position> tryDecode(String cursor) {
        if (cursor.isEmpty() || cursor.length() > 200) {
            return Optional.empty();
        }
        try {
            String raw = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            int colon = raw.indexOf(':');
            if (colon < 1 || colon == raw.length() - 1) {
                return Optional.empty();
            }
            long at = Long.parseLong(raw.substring(0, colon));
            String id = raw.substring(colon + 1);
            if (at < 0 || !id.matches("[A-Za-z0-9_-]{1,100}")) {
                return Optional.empty();
            }
            Instant.ofEpochMilli(at);
            return Optional.of(new Position(at, id));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
