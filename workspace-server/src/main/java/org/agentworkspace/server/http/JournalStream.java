package org.agentworkspace.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import io.helidon.http.HeaderNames;
import io.helidon.http.sse.SseEvent;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.sse.SseSink;

import org.agentworkspace.api.Principal;
import org.agentworkspace.core.auth.AccountWatch;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.journal.EventJournal;
import org.agentworkspace.core.journal.JournalCursor;
import org.agentworkspace.core.journal.LastEventId;

/**
 * The one follower of every replayable stream (docs/live-channels.md, "Server-sent event streams"): it writes a
 * {@link JournalCursor} of any {@link EventJournal} — a run's log, an install or update job, an account's
 * notifications — as SSE (or NDJSON), each entry through the route's {@link Frames}, until the journal ends or the
 * route's frames say the stream is over. Every stream it writes:
 * <ul>
 *   <li>holds one of the account's {@link StreamLimiter} slots while it is open (taken by the route before it
 *       starts anything, so a refusal is an ordinary 429);</li>
 *   <li>starts where {@link LastEventId} says (the route's {@code resume});</li>
 *   <li>sends a heartbeat every {@link #HEARTBEAT};</li>
 *   <li>ends with an {@code error} event {@code CREDENTIAL_REVOKED} at once when the account is deleted
 *       ({@link AccountWatch}) and within {@link #RECHECK} when the credential that opened it is no longer valid
 *       (an API key deactivated or deleted) — on every route alike;</li>
 *   <li>stops quietly when the client goes away (the job goes on).</li>
 * </ul>
 */
public final class JournalStream {
    /** How often a stream sends a heartbeat (keeps proxies from closing a quiet stream). */
    public static final Duration HEARTBEAT = Duration.ofSeconds(15);
    /** How often a stream re-checks that the credential that opened it is still valid. */
    public static final Duration RECHECK = Duration.ofSeconds(2);
    /** An event without an {@code id:} field. */
    public static final long NO_ID = -1;
    public static final String CREDENTIAL_REVOKED = "CREDENTIAL_REVOKED";
    static final String ACCOUNT_DELETED = "the account that opened this stream was deleted";
    static final String CREDENTIAL_INVALID = "the credential that opened this stream is no longer valid";

    private final Authentication auth;
    private final StreamLimiter limiter;

    /** @param auth checks the credentials of open streams (a guard built without one serves no stream) */
    JournalStream(Authentication auth, StreamLimiter limiter) {
        this.auth = auth;
        this.limiter = Objects.requireNonNull(limiter);
    }

    /** How a stream ended. */
    public enum End {
        /** The journal ended or the route's frames ended the stream. */
        ENDED,
        /** The account was deleted or the credential is no longer valid; an {@code error} event said so. */
        REVOKED,
        /** The client went away. */
        GONE
    }

    /** One output channel of a stream: SSE or NDJSON. Every method flushes. */
    public interface Out extends AutoCloseable {
        /** An event; {@code id} {@link #NO_ID} for none; {@code data} is JSON. */
        void emit(long id, String name, String data);

        /** A heartbeat without meaning (an SSE comment; an empty NDJSON line). */
        void comment(String text);

        @Override
        void close();
    }

    /** What a route writes for the entries of its journal. */
    public interface Frames<E> {
        /** Written first, before any entry; {@code at} is where the stream starts. */
        default void opened(long at, Out out) {
        }

        /**
         * Writes the frames of one entry.
         *
         * @return true when the stream ends after it (the job's terminal event)
         */
        boolean entry(E entry, Out out);

        /** Written every {@link #HEARTBEAT}; {@code at} is the last entry written (or the start). */
        default void heartbeat(long at, Out out) {
            out.comment("keep-alive");
        }

        /** The last frame of a revoked stream: an {@code error} event {@code CREDENTIAL_REVOKED}. */
        default void revoked(long at, String message, Out out) {
            out.emit(NO_ID, "error", error(CREDENTIAL_REVOKED, message));
        }
    }

    /** An {@code ErrorBody} as JSON ({@code code} and {@code message} are plain text without quotes). */
    public static String error(String code, String message) {
        return "{\"code\":\"" + code + "\",\"message\":\"" + message.replace("\\", "\\\\").replace("\"", "\\\"")
                + "\"}";
    }

    /**
     * Takes one of the account's stream slots; a route takes it before it starts anything the stream would report.
     *
     * @throws org.agentworkspace.api.WorkspaceException.RateLimited 429 {@code TOO_MANY_STREAMS}
     */
    public StreamLimiter.Slot slot(Principal principal) {
        return limiter.acquire(principal);
    }

    /**
     * For a stream that is not a journal (a route that polls and writes snapshots): ends it as {@link #follow} would
     * when the credential that opened it is no longer valid or its account is gone, writing the {@code error} event
     * {@code CREDENTIAL_REVOKED}. True when the stream may go on.
     */
    public boolean stillValid(Principal principal, Out out) {
        if (auth.stillValid(principal)) {
            return true;
        }
        out.emit(NO_ID, "error", error(CREDENTIAL_REVOKED, CREDENTIAL_INVALID));
        return false;
    }

    /** The request's {@code Last-Event-ID} header, or null. */
    public static String lastEventId(Call call) {
        return call.request().headers().first(HeaderNames.create("Last-Event-ID")).orElse(null);
    }

    /**
     * Writes {@code cursor} to {@code out} until the journal ends, the frames end the stream, the credential is
     * revoked or the client goes away. Closes the slot, the cursor and {@code out}; the slot is given back before
     * the stream's end is written, so a client that has seen the end can open its next stream at once.
     */
    public <E> End follow(Principal principal, StreamLimiter.Slot slot, JournalCursor<E> cursor, Frames<E> frames,
                          Out out) throws InterruptedException {
        Thread streaming = Thread.currentThread();
        Object lock = new Object();
        boolean[] waiting = {false};
        // the deletion interrupts the stream only while it waits for the journal, never while it writes
        AccountWatch.Watch watch = auth.accounts().watch().watch(principal.user().id(), () -> {
            synchronized (lock) {
                if (waiting[0]) {
                    streaming.interrupt();
                }
            }
        });
        try (slot; cursor; watch) {
            try {
                frames.opened(cursor.lastSeq(), out);
                long now = System.nanoTime();
                long nextCheck = now + RECHECK.toNanos();
                long nextBeat = now + HEARTBEAT.toNanos();
                while (true) {
                    if (watch.ended()) {
                        frames.revoked(cursor.lastSeq(), ACCOUNT_DELETED, out);
                        return End.REVOKED;
                    }
                    Optional<E> next = poll(cursor, Math.min(nextCheck, nextBeat) - System.nanoTime(), watch, lock,
                            waiting);
                    if (next != null && next.isPresent()) {
                        if (frames.entry(next.get(), out)) {
                            return End.ENDED;
                        }
                    } else if (next != null && cursor.finished()) {
                        return End.ENDED;
                    }
                    now = System.nanoTime();
                    if (now - nextCheck >= 0) {
                        nextCheck = now + RECHECK.toNanos();
                        if (!watch.ended() && !auth.stillValid(principal)) {
                            frames.revoked(cursor.lastSeq(), CREDENTIAL_INVALID, out);
                            return End.REVOKED;
                        }
                    }
                    if (now - nextBeat >= 0) {
                        nextBeat = now + HEARTBEAT.toNanos();
                        frames.heartbeat(cursor.lastSeq(), out);
                    }
                }
            } finally {
                slot.close();
                out.close();
            }
        } catch (UncheckedIOException e) {
            return End.GONE;
        } finally {
            if (watch.ended()) {
                // a deletion's interrupt is spent here, not on the connection's next request
                Thread.interrupted();
            }
        }
    }

    /** The next entry; null when the wait was cut short by the account's deletion. */
    private static <E> Optional<E> poll(JournalCursor<E> cursor, long nanos, AccountWatch.Watch watch, Object lock,
                                        boolean[] waiting) throws InterruptedException {
        synchronized (lock) {
            waiting[0] = true;
        }
        try {
            if (watch.ended()) {
                return null;
            }
            return cursor.poll(Duration.ofNanos(Math.max(1_000_000, nanos)));
        } catch (InterruptedException e) {
            if (watch.ended()) {
                return null;
            }
            throw e;
        } catch (RuntimeException e) {
            // a store read cut by the deletion's interrupt
            if (watch.ended()) {
                return null;
            }
            throw e;
        } finally {
            synchronized (lock) {
                waiting[0] = false;
            }
            if (watch.ended()) {
                Thread.interrupted();
            }
        }
    }

    /**
     * An SSE channel. {@code cacheControl} is the route's {@code Cache-Control} (null: none); proxies are asked not
     * to buffer ({@code X-Accel-Buffering: no}) when {@code unbuffered}.
     */
    public static Out sse(ServerResponse res, String cacheControl, boolean unbuffered) {
        if (cacheControl != null) {
            res.header(HeaderNames.CACHE_CONTROL, cacheControl);
        }
        if (unbuffered) {
            res.header(HeaderNames.create("X-Accel-Buffering"), "no");
        }
        SseSink sink = res.sink(SseSink.TYPE);
        return new Out() {
            @Override
            public void emit(long id, String name, String data) {
                SseEvent.Builder b = SseEvent.builder().name(name).data(data);
                if (id != NO_ID) {
                    b.id(Long.toString(id));
                }
                sink.emit(b.build());
            }

            @Override
            public void comment(String text) {
                sink.emit(keepAlive(text));
            }

            @Override
            public void close() {
                sink.close();
            }
        };
    }

    /**
     * A keep-alive: a comment line and an empty {@code data:} field. Helidon's SSE sink writes a data field for every
     * event and cannot write an event without data (a bare comment fails with "no media writer for Object"); an
     * event whose data is empty is not dispatched by an EventSource (HTML Living Standard, "dispatch the event"), so
     * clients see nothing but traffic.
     */
    public static SseEvent keepAlive(String comment) {
        return SseEvent.builder().comment(comment).data("").build();
    }

    /** An NDJSON channel: one {@code {"event","id"?,"data"}} object per line; a heartbeat is an empty line. */
    public static Out ndjson(ServerResponse res, String cacheControl) {
        res.header(HeaderNames.CONTENT_TYPE, "application/x-ndjson");
        res.header(HeaderNames.CACHE_CONTROL, cacheControl);
        res.header(HeaderNames.create("X-Accel-Buffering"), "no");
        OutputStream stream = res.outputStream();
        return new Out() {
            @Override
            public void emit(long id, String name, String data) {
                StringBuilder line = new StringBuilder(data.length() + name.length() + 40).append("{\"event\":\"")
                        .append(name).append('"');
                if (id != NO_ID) {
                    line.append(",\"id\":").append(id);
                }
                line.append(",\"data\":").append(data).append("}\n");
                write(line.toString().getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public void comment(String text) {
                write("\n".getBytes(StandardCharsets.UTF_8));
            }

            private void write(byte[] bytes) {
                try {
                    stream.write(bytes);
                    stream.flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }

            @Override
            public void close() {
                try {
                    stream.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }
}
