package org.agentworkspace.server;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Ends the process when a thread it cannot serve without has died, so that the launcher starts it again instead of
 * leaving a process that looks alive and answers nothing: Helidon's accept loop ends for good on an error such as
 * "too many open files" (its port then closes, or stays open with a full backlog), and nothing else would notice.
 * The process exits with {@link #EXIT_CRASHED} (70); scripts/run.sh starts it again after a back-off
 * (docs/configuration.md "Exit status and restarts"). Only the real server ({@link Main}) runs a watchdog: a test
 * server in a test JVM never ends its process.
 */
public final class Watchdog implements AutoCloseable {
    /** The exit status after a vital thread died (EX_SOFTWARE). */
    public static final int EXIT_CRASHED = 70;

    private static final System.Logger LOG = System.getLogger(Watchdog.class.getName());

    private final Map<String, BooleanSupplier> watched = new ConcurrentHashMap<>();
    private final ProcessExit exit;
    private final Thread thread;
    private volatile boolean stopped;

    private Watchdog(ProcessExit exit, Duration period) {
        this.exit = exit;
        this.thread = Thread.ofPlatform().daemon().name("aw-watchdog").unstarted(() -> loop(period));
    }

    /** Starts a watchdog that checks every {@code period}. */
    public static Watchdog start(ProcessExit exit, Duration period) {
        Watchdog w = new Watchdog(exit, period);
        w.thread.start();
        return w;
    }

    /** Watches a condition: when it turns false the process exits with {@link #EXIT_CRASHED}. */
    public Watchdog watch(String what, BooleanSupplier alive) {
        watched.put(what, alive);
        return this;
    }

    /** Watches Helidon's accept threads ({@code server-<socket>-listener}); false when none was found. */
    public boolean watchListeners() {
        List<Thread> listeners = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("server-") && t.getName().endsWith("-listener")).toList();
        for (Thread t : listeners) {
            watch("the HTTP listener thread " + t.getName(), t::isAlive);
        }
        return !listeners.isEmpty();
    }

    private void loop(Duration period) {
        while (!stopped) {
            try {
                Thread.sleep(period);
            } catch (InterruptedException e) {
                return;
            }
            for (Map.Entry<String, BooleanSupplier> e : watched.entrySet()) {
                boolean alive;
                try {
                    alive = e.getValue().getAsBoolean();
                } catch (RuntimeException ex) {
                    alive = false;
                }
                if (!alive && !stopped) {
                    stopped = true;
                    LOG.log(System.Logger.Level.ERROR, e.getKey() + " has ended; exiting with status "
                            + EXIT_CRASHED + " so that scripts/run.sh or the service manager starts the server again");
                    exit.exit(EXIT_CRASHED);
                    return;
                }
            }
        }
    }

    /** Stops watching (a graceful shutdown ends the watched threads on purpose). */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
    }
}
