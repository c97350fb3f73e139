package org.agentworkspace.core.system;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A deadline for reading a response body: the JDK client's request timeout covers only the wait for the headers, so
 * a source that answers and then sends its body slowly, or stops, would hold an update (and with it every restart)
 * forever. When the deadline passes the body stream is closed, which ends a blocked read with an exception; {@link
 * #expired} then tells why.
 */
final class BodyDeadline implements AutoCloseable {
    private final AtomicBoolean expired = new AtomicBoolean();
    private final CompletableFuture<Void> timer;

    private BodyDeadline(InputStream body, Duration limit) {
        this.timer = CompletableFuture.runAsync(() -> {
            expired.set(true);
            try {
                body.close();
            } catch (IOException e) {
                // closing is all that is wanted
            }
        }, CompletableFuture.delayedExecutor(Math.max(1, limit.toMillis()), TimeUnit.MILLISECONDS));
    }

    /** Closes {@code body} once {@code limit} has passed, unless this deadline is closed first. */
    static BodyDeadline watch(InputStream body, Duration limit) {
        return new BodyDeadline(body, limit);
    }

    /** Whether the deadline passed (and closed the body). */
    boolean expired() {
        return expired.get();
    }

    @Override
    public void close() {
        timer.cancel(false);
    }
}
