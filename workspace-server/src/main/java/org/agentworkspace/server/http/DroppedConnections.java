package org.agentworkspace.server.http;

import java.io.UncheckedIOException;
import java.net.SocketException;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Filter;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Keeps connections that a client dropped in the middle of a request out of the log, one stack trace each: Helidon
 * logs a client that closes its connection while its request head is still arriving as a WARNING "Internal server
 * error" with an 18-line trace, and a client that resets the connection as an I/O error. A filter on the root
 * log handlers drops those records (only records of Helidon's web server whose cause is such a disconnect) and
 * counts them; {@link ConnectionGate} reports the count in its summary line (at most one line per ten seconds).
 */
public final class DroppedConnections {
    private static final LongAdder DROPPED = new LongAdder();
    /** Held: JUL keeps loggers only weakly, and the root logger's handlers carry the filter. */
    private static final Logger ROOT = Logger.getLogger("");
    private static volatile boolean installed;

    private DroppedConnections() {
    }

    /** Puts the filter on every handler of the root logger (once per process). */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        for (Handler h : ROOT.getHandlers()) {
            Filter previous = h.getFilter();
            h.setFilter(r -> {
                if (isDrop(r)) {
                    DROPPED.increment();
                    return false;
                }
                return previous == null || previous.isLoggable(r);
            });
        }
        installed = true;
    }

    /** The drops counted since the last call. */
    static long drain() {
        return DROPPED.sumThenReset();
    }

    static boolean isDrop(LogRecord r) {
        String logger = r.getLoggerName();
        if (logger == null || !logger.startsWith("io.helidon.webserver")) {
            return false;
        }
        for (Throwable t = r.getThrown(); t != null; t = t.getCause()) {
            String name = t.getClass().getName();
            if (name.equals("io.helidon.common.buffers.DataReader$InsufficientDataAvailableException")) {
                return true;
            }
            if (t instanceof SocketException s && s.getMessage() != null
                    && (s.getMessage().contains("reset") || s.getMessage().contains("Broken pipe")
                    || s.getMessage().contains("Socket closed"))) {
                return true;
            }
            if (t instanceof UncheckedIOException && t.getCause() == null) {
                return false;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
