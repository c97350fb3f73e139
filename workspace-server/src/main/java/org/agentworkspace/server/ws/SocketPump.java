package org.agentworkspace.server.ws;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.helidon.common.buffers.BufferData;
import io.helidon.websocket.WsCloseCodes;
import io.helidon.websocket.WsSession;

/**
 * The sending side of one server WebSocket (used by {@code /ws} and {@code /shell}): frames go through an unbounded
 * queue to one virtual sender thread, so whoever produces them never blocks on the network; the characters of
 * counted text frames are tracked so the owner can bound what a slow reader may hold up ({@link #queuedChars},
 * {@link #awaitRoom}); a heartbeat pings the client, closes a socket silent for three intervals (1001) and drops one
 * whose single write blocked longer than the write timeout.
 *
 * <p>The owner's {@code onEnd} runs when the socket is done from the pump's side (its close frame sent, a write
 * failed or blocked too long); the owner's own end calls {@link #stop}.
 */
public final class SocketPump {
    private static final System.Logger LOG = System.getLogger(SocketPump.class.getName());

    private sealed interface Out permits Text, Ping, Pong, Close {
    }

    private record Text(String text, boolean counted) implements Out {
    }

    private record Ping() implements Out {
    }

    private record Pong(byte[] data) implements Out {
    }

    private record Close(int code, String reason) implements Out {
    }

    private final String name;
    private final Duration heartbeatEvery;
    private final Duration writeTimeout;
    private final Runnable onEnd;
    private final LinkedBlockingQueue<Out> queue = new LinkedBlockingQueue<>();
    private final AtomicLong queuedChars = new AtomicLong();
    private final ReentrantLock drainLock = new ReentrantLock();
    private final Condition drained = drainLock.newCondition();
    private volatile boolean closing;
    private volatile long lastHeard = System.nanoTime();
    private volatile long sendingSince;
    private volatile WsSession socket;
    private volatile ScheduledFuture<?> heartbeat;
    private volatile Thread sender;

    /**
     * @param name           names the sender thread and the log lines ({@code chat}, {@code shell})
     * @param heartbeatEvery how often to ping
     * @param writeTimeout   how long one write may block before the socket is dropped
     * @param onEnd          the owner's end of the socket (called at most once by the pump)
     */
    public SocketPump(String name, Duration heartbeatEvery, Duration writeTimeout, Runnable onEnd) {
        this.name = Objects.requireNonNull(name);
        this.heartbeatEvery = Objects.requireNonNull(heartbeatEvery);
        this.writeTimeout = Objects.requireNonNull(writeTimeout);
        this.onEnd = Objects.requireNonNull(onEnd);
    }

    /** A single daemon thread that runs the heartbeats of every socket of one endpoint. */
    public static java.util.concurrent.ScheduledExecutorService heartbeatTimer(String name) {
        return java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts sending on {@code session} and the heartbeat on {@code timer}. */
    public void start(WsSession session, ScheduledExecutorService timer) {
        socket = session;
        sender = Thread.ofVirtual().name(name + "-send").start(this::sendLoop);
        long every = heartbeatEvery.toMillis();
        heartbeat = timer.scheduleWithFixedDelay(this::beat, every, every, TimeUnit.MILLISECONDS);
    }

    /** The client said something (a message, a ping or a pong): it is alive. */
    public void heard() {
        lastHeard = System.nanoTime();
    }

    /** Whether the socket is closing or closed: nothing more is queued. */
    public boolean closing() {
        return closing;
    }

    /** Characters of counted text frames queued and not yet written. */
    public long queuedChars() {
        return queuedChars.get();
    }

    /** Queues a text frame whose characters count against the owner's bound until written. */
    public void send(String text) {
        if (closing) {
            return;
        }
        queuedChars.addAndGet(text.length());
        queue.add(new Text(text, true));
    }

    /** Queues a text frame that does not count (a bounded replay the owner sends whole). */
    public void sendUncounted(String text) {
        if (!closing) {
            queue.add(new Text(text, false));
        }
    }

    /** Answers a client's ping. */
    public void pong(byte[] data) {
        if (!closing) {
            queue.add(new Pong(data));
        }
    }

    /** Queues the close frame; nothing is queued after it. */
    public void closeWith(int code, String reason) {
        if (closing) {
            return;
        }
        closing = true;
        queue.add(new Close(code, reason));
        signalDrained();
    }

    /** Drops every frame not yet written (a slow consumer is being cut) and closes with {@code code}. */
    public void cut(int code, String reason) {
        queue.clear();
        queuedChars.set(0);
        closeWith(code, reason);
    }

    /**
     * Waits until {@code chars} more counted characters fit under {@code maxQueued} (an empty queue always takes
     * one frame), at most {@code grace}.
     *
     * @return true when there is room; false when the socket is closing or the grace passed
     */
    public boolean awaitRoom(int chars, long maxQueued, Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        drainLock.lock();
        try {
            while (queuedChars.get() + chars > maxQueued && queuedChars.get() > 0) {
                if (closing) {
                    return false;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                drained.awaitNanos(left);
            }
            return !closing;
        } finally {
            drainLock.unlock();
        }
    }

    /** Stops the heartbeat and the sender and wakes anyone waiting for room (the owner's end). */
    public void stop() {
        closing = true;
        signalDrained();
        ScheduledFuture<?> h = heartbeat;
        if (h != null) {
            h.cancel(false);
        }
        Thread t = sender;
        if (t != null) {
            t.interrupt();
        }
    }

    /** Drops the connection without ceremony (the socket may be gone already). */
    public void drop() {
        WsSession ws = socket;
        if (ws != null) {
            try {
                ws.terminate();
            } catch (RuntimeException e) {
                // already closed
            }
        }
    }

    private void signalDrained() {
        drainLock.lock();
        try {
            drained.signalAll();
        } finally {
            drainLock.unlock();
        }
    }

    private void sendLoop() {
        try {
            while (true) {
                Out out = queue.take();
                WsSession ws = socket;
                sendingSince = System.nanoTime();
                switch (out) {
                    case Text t -> {
                        ws.send(t.text(), true);
                        if (t.counted()) {
                            queuedChars.addAndGet(-t.text().length());
                            signalDrained();
                        }
                    }
                    case Ping p -> ws.ping(BufferData.empty());
                    case Pong p -> ws.pong(BufferData.create(p.data()));
                    case Close c -> {
                        ws.close(c.code(), c.reason());
                        // the client's answer may never come (a dead peer): the socket is done for us now
                        onEnd.run();
                        return;
                    }
                }
                sendingSince = 0;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // the peer is gone (Helidon reports an aborted socket to nobody): this is how it is noticed
            LOG.log(System.Logger.Level.DEBUG, name + " send failed", e);
            drop();
            onEnd.run();
        } finally {
            sendingSince = 0;
        }
    }

    /** Pings; drops a socket that has been silent for three intervals or stuck in one write too long. */
    private void beat() {
        long now = System.nanoTime();
        long since = sendingSince;
        if (since != 0 && now - since > writeTimeout.toNanos()) {
            // interrupting the sender (a virtual thread blocked in a socket write) closes the socket; closing it
            // from here could block this timer thread on the same full buffer
            LOG.log(System.Logger.Level.INFO, name + " socket dropped: a write blocked too long");
            onEnd.run();
            return;
        }
        if (now - lastHeard > 3 * heartbeatEvery.toNanos()) {
            closeWith(WsCloseCodes.GOING_AWAY, "no answer to pings");
            return;
        }
        if (!closing) {
            queue.add(new Ping());
        }
    }
}
