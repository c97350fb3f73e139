package org.agentworkspace.server.http;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.helidon.common.socket.SocketOptions;
import io.helidon.http.Headers;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;

/**
 * Admission of TCP connections, before a byte of them is read: a cap on connections in all and per client address,
 * and a deadline for the first request head. Helidon 4.3.1 has no accept hook and its own
 * {@code maxTcpConnections} blocks the accept loop when reached (new clients then wait in the kernel's backlog), so
 * the gate sits where Helidon configures each accepted socket: it is the listener's {@link SocketOptions}, whose
 * {@link #configureSocket} runs on the accept thread right after {@code accept()}. A connection it refuses is closed
 * there, before Helidon gives it a thread or a buffer; the accept loop never waits.
 *
 * <ul>
 *   <li>When a client address holds {@link ConnectionLimits#maxPerAddress()} connections, its oldest connection that
 *       has not yet sent a complete request head is closed to make room; if all of them have, the new one is
 *       closed. A slow client thus competes only with itself, and a real client behind the same address (its head
 *       arrives at once) still gets in. Trusted proxies are exempt (every client behind them shares the address).</li>
 *   <li>The same rule applies to all connections together at {@link ConnectionLimits#maxConnections()} (never more
 *       than three quarters of the process's file-descriptor limit, so {@code accept()} cannot fail for want of
 *       one — Helidon's accept loop ends on such an error).</li>
 *   <li>A connection that has not delivered its first request head within {@link ConnectionLimits#headTimeout()}
 *       is closed. Later requests on a kept-alive connection are bounded by Helidon's idle timeout.</li>
 * </ul>
 *
 * What the gate closes is summed up in one log line per ten seconds at most, never a line (or a stack trace) per
 * connection. {@link #receiveListener()} tells the gate when a connection's head is complete.
 */
public final class ConnectionGate implements SocketOptions, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ConnectionGate.class.getName());
    private static final Duration SWEEP = Duration.ofMillis(250);
    private static final long REPORT_NANOS = Duration.ofSeconds(10).toNanos();
    /** Thrown to Helidon's accept loop, which then closes the socket (and logs at TRACE): no stack trace. */
    private static final RefusedException REFUSED = new RefusedException();

    private final SocketOptions delegate;
    private final ConnectionLimits limits;
    private final int maxConnections;
    private final Set<InetAddress> exempt;
    private final LongSupplier clock;

    private final Object lock = new Object();
    private final Map<SocketAddress, Conn> byRemote = new ConcurrentHashMap<>();
    private final Map<InetAddress, Deque<Conn>> byAddress = new HashMap<>();
    private final Deque<Conn> pending = new ArrayDeque<>();
    private int open;

    private long refusedPerAddress;
    private long refusedTotal;
    private long evicted;
    private long timedOut;
    private InetAddress lastOffender;
    private long lastReport = System.nanoTime();
    private final Thread sweeper;
    private volatile boolean closed;

    private static final class Conn {
        final Socket socket;
        final InetAddress address;
        final SocketAddress remote;
        final long acceptedNanos;
        volatile boolean headDone;
        boolean released;

        Conn(Socket socket, long now) {
            this.socket = socket;
            this.address = socket.getInetAddress();
            this.remote = socket.getRemoteSocketAddress();
            this.acceptedNanos = now;
        }

        boolean waitingForHead() {
            return !headDone && !released && !socket.isClosed();
        }
    }

    private static final class RefusedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RefusedException() {
            super("connection refused by the connection limits", null, false, false);
        }
    }

    /**
     * @param delegate the socket options Helidon would otherwise use (TCP_NODELAY and so on)
     * @param limits   the caps and the head deadline
     * @param exempt   addresses not bound by the per-address cap (the trusted proxies)
     */
    public ConnectionGate(SocketOptions delegate, ConnectionLimits limits, Set<InetAddress> exempt) {
        this(delegate, limits, exempt, System::nanoTime);
    }

    ConnectionGate(SocketOptions delegate, ConnectionLimits limits, Set<InetAddress> exempt, LongSupplier clock) {
        this.delegate = delegate;
        this.limits = limits;
        this.exempt = Set.copyOf(exempt);
        this.clock = clock;
        long fds = fileDescriptorLimit();
        this.maxConnections = fds > 0 ? (int) Math.max(16, Math.min(limits.maxConnections(), fds * 3 / 4))
                : limits.maxConnections();
        if (maxConnections < limits.maxConnections()) {
            LOG.log(System.Logger.Level.WARNING, "at most " + maxConnections + " connections (not "
                    + limits.maxConnections() + "): the process may open only " + fds + " files (ulimit -n)");
        }
        this.sweeper = Thread.ofPlatform().daemon().name("aw-connection-gate").unstarted(this::sweepLoop);
        sweeper.start();
    }

    /** The process's file-descriptor limit, or -1 when the JVM does not say. */
    private static long fileDescriptorLimit() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return u.getMaxFileDescriptorCount();
        }
        return -1;
    }

    /** The cap on connections in all that applies (the configured one, lowered to fit the descriptor limit). */
    public int maxConnections() {
        return maxConnections;
    }

    /** Whether the sweeper (head deadlines, the summary line) is alive, or the gate was closed on purpose. */
    public boolean sweeping() {
        return closed || sweeper.isAlive();
    }

    /** Connections the gate counts as open now. */
    public int openConnections() {
        synchronized (lock) {
            return open;
        }
    }

    /** The receive listener that reports each complete request head to the gate (add it to the HTTP/1 config). */
    public Http1ConnectionListener receiveListener() {
        return new Http1ConnectionListener() {
            @Override
            public void headers(ConnectionContext ctx, Headers headers) {
                headReceived(ctx.remotePeer().address());
            }
        };
    }

    void headReceived(SocketAddress remote) {
        Conn c = byRemote.get(remote);
        if (c != null) {
            c.headDone = true;
        }
    }

    @Override
    public void configureSocket(Socket socket) {
        delegate.configureSocket(socket);
        admit(socket);
    }

    private void admit(Socket socket) {
        long now = clock.getAsLong();
        synchronized (lock) {
            if (closed) {
                throw REFUSED;
            }
            Conn conn = new Conn(socket, now);
            if (conn.address == null || conn.remote == null) {
                throw REFUSED;
            }
            if (!exempt.contains(conn.address)) {
                Deque<Conn> mine = byAddress.get(conn.address);
                if (mine != null && mine.size() >= limits.maxPerAddress()) {
                    purge(mine);
                    if (mine.size() >= limits.maxPerAddress() && !evictOldestWaiting(mine)) {
                        refusedPerAddress++;
                        lastOffender = conn.address;
                        throw REFUSED;
                    }
                }
            }
            if (open >= maxConnections) {
                for (Deque<Conn> d : byAddress.values().toArray(Deque[]::new)) {
                    purge(d);
                }
                if (open >= maxConnections && !evictOldestWaiting(pending)) {
                    refusedTotal++;
                    lastOffender = conn.address;
                    throw REFUSED;
                }
            }
            byAddress.computeIfAbsent(conn.address, a -> new ArrayDeque<>()).addLast(conn);
            byRemote.put(conn.remote, conn);
            pending.addLast(conn);
            open++;
        }
    }

    /** Releases the closed connections of one address (under the lock). */
    private void purge(Deque<Conn> conns) {
        for (Iterator<Conn> it = conns.iterator(); it.hasNext(); ) {
            Conn c = it.next();
            if (c.socket.isClosed()) {
                it.remove();
                releaseLocked(c, false);
            }
        }
    }

    /** Closes the oldest connection of {@code conns} still waiting for its first head; false when there is none. */
    private boolean evictOldestWaiting(Deque<Conn> conns) {
        for (Iterator<Conn> it = conns.iterator(); it.hasNext(); ) {
            Conn c = it.next();
            if (c.waitingForHead()) {
                closeQuietly(c.socket);
                it.remove();
                // removed from this deque already; from its address's deque too when this is the pending list
                releaseLocked(c, conns != byAddress.get(c.address));
                evicted++;
                lastOffender = c.address;
                return true;
            }
        }
        return false;
    }

    private void releaseLocked(Conn c, boolean removeFromAddress) {
        if (c.released) {
            return;
        }
        c.released = true;
        open--;
        byRemote.remove(c.remote, c);
        Deque<Conn> mine = byAddress.get(c.address);
        if (mine != null) {
            if (removeFromAddress) {
                mine.remove(c);
            }
            if (mine.isEmpty()) {
                byAddress.remove(c.address);
            }
        }
    }

    private void sweepLoop() {
        while (!closed) {
            try {
                Thread.sleep(SWEEP);
                sweep();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "connection sweep failed: " + e);
            }
        }
    }

    /** Releases closed connections, closes those past the head deadline, and reports now and then. */
    void sweep() {
        long now = clock.getAsLong();
        long deadline = limits.headTimeout().toNanos();
        String report = null;
        synchronized (lock) {
            for (Conn c : byRemote.values()) {
                if (c.socket.isClosed()) {
                    releaseLocked(c, true);
                } else if (!c.headDone && now - c.acceptedNanos > deadline) {
                    closeQuietly(c.socket);
                    releaseLocked(c, true);
                    timedOut++;
                    lastOffender = c.address;
                }
            }
            pending.removeIf(c -> c.released || c.headDone);
            if (now - lastReport >= REPORT_NANOS) {
                lastReport = now;
                long dropped = DroppedConnections.drain();
                java.util.List<String> parts = new java.util.ArrayList<>();
                if (refusedPerAddress > 0) {
                    parts.add(refusedPerAddress + " new over the cap of " + limits.maxPerAddress() + " per address");
                }
                if (refusedTotal > 0) {
                    parts.add(refusedTotal + " new over the cap of " + maxConnections + " in all");
                }
                if (evicted > 0) {
                    parts.add(evicted + " still waiting for their request head, to make room at a cap");
                }
                if (timedOut > 0) {
                    parts.add(timedOut + " that sent no request head within " + limits.headTimeout().toSeconds()
                            + " s");
                }
                if (!parts.isEmpty()) {
                    parts.set(parts.size() - 1, parts.getLast() + " (the last from "
                            + lastOffender.getHostAddress() + ")");
                }
                if (dropped > 0) {
                    parts.add(dropped + " closed by their clients in the middle of a request");
                }
                if (!parts.isEmpty()) {
                    report = "connections closed: "
                            + String.join("; ", parts);
                }
                refusedPerAddress = 0;
                refusedTotal = 0;
                evicted = 0;
                timedOut = 0;
                lastOffender = null;
            }
        }
        if (report != null) {
            LOG.log(System.Logger.Level.WARNING, report);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already gone
        }
    }

    @Override
    public void close() {
        closed = true;
        sweeper.interrupt();
    }

    // the rest of SocketOptions: Helidon's own settings, unchanged

    @Override
    public Map<SocketOption<?>, Object> socketOptions() {
        return delegate.socketOptions();
    }

    @Override
    public Duration connectTimeout() {
        return delegate.connectTimeout();
    }

    @Override
    public Duration readTimeout() {
        return delegate.readTimeout();
    }

    @Override
    public Optional<Integer> socketReceiveBufferSize() {
        return delegate.socketReceiveBufferSize();
    }

    @Override
    public Optional<Integer> socketSendBufferSize() {
        return delegate.socketSendBufferSize();
    }

    @Override
    public boolean socketReuseAddress() {
        return delegate.socketReuseAddress();
    }

    @Override
    public boolean socketKeepAlive() {
        return delegate.socketKeepAlive();
    }

    @Override
    public boolean tcpNoDelay() {
        return delegate.tcpNoDelay();
    }
}
