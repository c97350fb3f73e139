package org.agentworkspace.server.availability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow, credential-less connections (issue 18, point 1), against the server as its own process with run.sh's JVM
 * flags (96 MB heap): 8,000 connections that each send a partial request head and then wait. Before the connection
 * gate, a few thousand of them ran the heap out and the listener died while the process lived on. Now, while they
 * are held, {@code /health} from another connection answers within 3 s; within 1 s after they go; the process is
 * alive; and the log sums the closed connections up in a line instead of a stack trace per connection.
 *
 * <p>Bounded: 8,000 sockets on loopback (the test JVM's descriptors; the server's are its own), about 15 s in all.
 */
class SlowClientsTest {
    /** 8,000, or fewer when this JVM may not open that many sockets (three quarters of its descriptor limit). */
    private static final int HALF_OPEN = (int) Math.min(8000, descriptorLimit() * 3 / 4);
    private static final byte[] PARTIAL_HEAD = ("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            .getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path tmp;

    private static long descriptorLimit() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean u ? u.getMaxFileDescriptorCount() : 8192;
    }

    @Test
    void eightThousandHalfOpenConnectionsDoNotKeepHealthFromAnswering() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(HALF_OPEN >= 2000, "ulimit -n of this JVM is "
                + descriptorLimit() + ": too low to hold thousands of connections (needs about 11,000 for 8,000)");
        if (HALF_OPEN < 8000) {
            System.out.println("SlowClientsTest: holding " + HALF_OPEN + " connections, not 8,000: ulimit -n is "
                    + descriptorLimit());
        }
        try (ServerProcess server = ServerProcess.start(tmp.resolve("data"),
                Files.createDirectories(tmp.resolve("home")), List.of())) {
            InetSocketAddress addr = new InetSocketAddress("127.0.0.1", server.port);
            assertEquals(200, health(addr, Duration.ofSeconds(10)), "healthy before");
            assertTrue(!server.log().contains("was not found"), "Main's watchdog watches the HTTP listener:\n"
                    + server.log());

            int logBefore = server.log().length();
            List<SocketChannel> held = new ArrayList<>(HALF_OPEN);
            try (Selector selector = Selector.open()) {
                int connected = open(addr, selector, held, Duration.ofSeconds(20));
                assertTrue(connected > HALF_OPEN / 2, "only " + connected + " of the connections were opened");

                long t = System.nanoTime();
                assertEquals(200, health(addr, Duration.ofSeconds(3)), "health while held:\n" + tail(server));
                long first = System.nanoTime() - t;
                Thread.sleep(2000);
                t = System.nanoTime();
                assertEquals(200, health(addr, Duration.ofSeconds(3)), "health while held, 2 s later:\n"
                        + tail(server));
                long second = System.nanoTime() - t;
                System.out.printf("opened %d half-open connections; /health answered in %d ms and %d ms%n",
                        connected, first / 1_000_000, second / 1_000_000);
            } finally {
                for (SocketChannel c : held) {
                    try {
                        c.close();
                    } catch (IOException e) {
                        // closing: nothing to do
                    }
                }
            }
            long t = System.nanoTime();
            assertEquals(200, health(addr, Duration.ofSeconds(1)), "health after they went:\n" + tail(server));
            System.out.printf("after: %d ms%n", (System.nanoTime() - t) / 1_000_000);
            assertTrue(server.process.isAlive(), "the server process is alive");
            // wait for the gate's summary (at most one line per 10 s)
            long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (!server.log().contains("connections closed: ") && System.nanoTime() < until) {
                Thread.sleep(200);
            }
            String log = server.log().substring(logBefore);
            assertTrue(log.contains("connections closed: "), "the closed connections are summed up:\n"
                    + log);
            List<String> traces = log.lines().filter(l -> l.startsWith("\tat ") || l.startsWith("        at "))
                    .toList();
            assertEquals(List.of(), traces, "no stack trace for dropped connections:\n" + log);
            assertTrue(log.lines().count() < 10, "a few log lines, not one per connection:\n" + log);
        }
    }

    /** Opens up to {@link #HALF_OPEN} connections and sends each a partial head; returns how many connected. */
    private static int open(InetSocketAddress addr, Selector selector, List<SocketChannel> held, Duration within)
            throws IOException {
        long deadline = System.nanoTime() + within.toNanos();
        int connected = 0;
        for (int i = 0; i < HALF_OPEN; i++) {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            held.add(ch);
            if (ch.connect(addr)) {
                connected += send(ch);
            } else {
                ch.register(selector, SelectionKey.OP_CONNECT);
            }
            if (i % 200 == 199) {
                connected += finish(selector, 0);
            }
        }
        while (!selector.keys().isEmpty() && System.nanoTime() < deadline) {
            connected += finish(selector, 100);
        }
        return connected;
    }

    private static int finish(Selector selector, long waitMillis) throws IOException {
        int n = waitMillis == 0 ? selector.selectNow() : selector.select(waitMillis);
        int connected = 0;
        if (n == 0) {
            return 0;
        }
        for (SelectionKey k : selector.selectedKeys()) {
            SocketChannel ch = (SocketChannel) k.channel();
            k.cancel();
            try {
                if (ch.finishConnect()) {
                    connected += send(ch);
                }
            } catch (IOException e) {
                // refused or reset while connecting: counts as not opened
            }
        }
        selector.selectedKeys().clear();
        selector.selectNow();
        return connected;
    }

    private static int send(SocketChannel ch) {
        try {
            ch.write(ByteBuffer.wrap(PARTIAL_HEAD));
            return 1;
        } catch (IOException e) {
            return 1;
        }
    }

    /** GET /health on a new connection; the status, or -1 when no answer came within {@code within}. */
    private static int health(InetSocketAddress addr, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        try (Socket s = new Socket()) {
            s.connect(addr, (int) Math.max(1, within.toMillis()));
            s.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            OutputStream out = s.getOutputStream();
            out.write(("GET /health HTTP/1.1\r\nHost: 127.0.0.1:" + addr.getPort() + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') {
                line.append((char) c);
            }
            if (System.nanoTime() > deadline) {
                return -1;
            }
            String[] parts = line.toString().split(" ");
            return parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    private static String tail(ServerProcess server) {
        String log = server.log();
        return log.length() > 4000 ? log.substring(log.length() - 4000) : log;
    }
}
