package org.agentworkspace.core.journal;

import java.util.regex.Pattern;

/**
 * The one {@code Last-Event-ID} rule of every stream of a journal (docs/live-channels.md, "Resuming a stream").
 *
 * <p>The header resumes a stream after the entry it names when it is a sequence number the journal has handed out:
 * a decimal whole number from 0 up to the journal's newest (surrounding blanks ignored). Any other value — empty, not
 * a number, negative, beyond the newest (another server's id, a store put back from a backup) — is treated as if the
 * header were absent: the stream starts where it starts without one. It is never an error: an {@code EventSource}
 * sends back whatever id it last saw, and a refusal would end its reconnecting for good, while an id that cannot be
 * resumed from must not silence a stream either. The HTML standard leaves the interpretation of the id to the server.
 */
public final class LastEventId {
    private static final Pattern NUMBER = Pattern.compile("[0-9]{1,18}");

    private LastEventId() {
    }

    /**
     * Where a reader starts.
     *
     * @param header the {@code Last-Event-ID} value, or null when the request has none
     * @param newest the journal's newest sequence number
     * @param absent where the stream starts without the header
     */
    public static long resumeAfter(String header, long newest, long absent) {
        if (header == null) {
            return absent;
        }
        String v = header.strip();
        if (!NUMBER.matcher(v).matches()) {
            return absent;
        }
        long id = Long.parseLong(v);
        return id <= newest ? id : absent;
    }
}
