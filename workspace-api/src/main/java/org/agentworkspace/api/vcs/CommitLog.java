package org.agentworkspace.api.vcs;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One page of a branch's history, newest first, as {@code git log} orders it (by commit time).
 *
 * @param commits the commits of this page
 * @param next    the opaque cursor of the next page ({@link Vcs#log}), {@code null} on the last page
 */
public record CommitLog(List<Entry> commits, String next) {
    /** The most commits one page holds. */
    public static final int MAX_LIMIT = 200;
    /** The page size when none is asked for. */
    public static final int DEFAULT_LIMIT = 50;

    public CommitLog {
        commits = List.copyOf(commits);
    }

    /**
     * One commit.
     *
     * @param hash        the full commit id (40 hex digits)
     * @param shortHash   the shortest unambiguous abbreviation of at least 7 digits
     * @param subject     the first paragraph of the message, joined into one line (git's {@code %s})
     * @param authorName  the author's name
     * @param authorEmail the author's e-mail
     * @param date        when it was authored
     */
    public record Entry(String hash, String shortHash, String subject, String authorName, String authorEmail,
                        Instant date) {
        public Entry {
            Objects.requireNonNull(hash, "hash");
            Objects.requireNonNull(shortHash, "shortHash");
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(authorName, "authorName");
            Objects.requireNonNull(authorEmail, "authorEmail");
            Objects.requireNonNull(date, "date");
        }
    }
}
