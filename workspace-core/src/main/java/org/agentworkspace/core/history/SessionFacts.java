package org.agentworkspace.core.history;

import java.time.Instant;
import java.util.List;

import org.agentworkspace.api.history.SessionSummary;
import org.agentworkspace.api.history.Usage;

/**
 * What one read learned about a session; facts of consecutive reads {@link #merge merge} into the facts of the whole
 * session, so an index that reads only appended lines can keep its summary current.
 *
 * <ul>
 *   <li>{@code sessionId}, {@code projectPath}: first non-null wins (the project is the working directory the session
 *       started in).</li>
 *   <li>{@code title} with {@code titleRank} (3 custom title, 2 AI title / CLI summary, 1 older summary record):
 *       higher rank wins, equal rank the later one.</li>
 *   <li>{@code firstPrompt}: the first user text; {@code firstActivity}/{@code lastActivity}: min/max timestamp.</li>
 *   <li>{@code messageCount}: messages delivered. When {@code reset} is set (the CLI rewrote its message list during
 *       this read), the count and first prompt of this read replace the earlier ones instead of adding to them.
 *       Re-deliveries of an id across reads (gemini, opencode updates) may overcount; an index that stores the
 *       messages should count its own rows.</li>
 *   <li>{@code usage}: summed, unless {@code usageAbsolute} (codex reports running totals), then the later one
 *       wins.</li>
 * </ul>
 */
public record SessionFacts(
        String sessionId,
        String projectPath,
        String title,
        int titleRank,
        String firstPrompt,
        Instant firstActivity,
        Instant lastActivity,
        long messageCount,
        boolean subagent,
        Usage usage,
        boolean usageAbsolute,
        boolean reset) {

    public static final SessionFacts EMPTY = new SessionFacts(null, null, null, 0, null, null, null, 0, false, null,
            false, false);

    /** The facts of this read followed by {@code later}. */
    public SessionFacts merge(SessionFacts later) {
        if (later == null) {
            return this;
        }
        String t = title;
        int rank = titleRank;
        if (later.title != null && later.titleRank >= titleRank) {
            t = later.title;
            rank = later.titleRank;
        }
        Usage u;
        boolean abs;
        if (later.usageAbsolute) {
            u = later.usage;
            abs = true;
        } else if (later.usage == null) {
            u = usage;
            abs = usageAbsolute;
        } else {
            u = usage == null ? later.usage : usage.plus(later.usage);
            abs = usageAbsolute;
        }
        return new SessionFacts(
                sessionId != null ? sessionId : later.sessionId,
                projectPath != null ? projectPath : later.projectPath,
                t, rank,
                later.reset ? firstNonNull(later.firstPrompt, firstPrompt) : firstNonNull(firstPrompt, later.firstPrompt),
                min(firstActivity, later.firstActivity),
                max(lastActivity, later.lastActivity),
                later.reset ? later.messageCount : messageCount + later.messageCount,
                subagent || later.subagent,
                u, abs,
                reset || later.reset);
    }

    /**
     * The summary of {@code file} from these facts. {@code exactCount} says whether the facts cover the whole
     * session (else {@code messageCount} is left null). lastActivity falls back to the file's modification time.
     */
    public SessionSummary toSummary(SessionFile file, boolean exactCount) {
        Instant last = lastActivity != null ? lastActivity : file.modified();
        Instant first = firstActivity != null ? firstActivity : last;
        return new SessionSummary(file.provider(), file.sessionId(), projectPath, title, firstPrompt, first, last,
                exactCount ? Integer.valueOf((int) Math.min(Integer.MAX_VALUE, messageCount)) : null,
                subagent, usage, List.of(file.path().toString()));
    }

    private static String firstNonNull(String a, String b) {
        return a != null ? a : b;
    }

    private static Instant min(Instant a, Instant b) {
        if (a == null) {
            return b;
        }
        return b == null || !b.isBefore(a) ? a : b;
    }

    private static Instant max(Instant a, Instant b) {
        if (a == null) {
            return b;
        }
        return b == null || !b.isAfter(a) ? a : b;
    }
}
