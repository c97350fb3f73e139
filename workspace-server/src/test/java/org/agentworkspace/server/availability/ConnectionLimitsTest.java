package org.agentworkspace.server.availability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.junit.jupiter.api.Test;

/**
 * The connection limits through the running server, with the options an operator sets
 * ({@code --head-timeout-seconds}, {@code --max-connections-per-address}, {@code --trusted-proxies}): a connection
 * that sends no complete request head is closed at the deadline; a client address at its cap whose connections all
 * sent their heads (kept-alive connections) gets its next connection closed at once, while another address is
 * served; a trusted proxy's address is not bound by the per-address cap. The clients use loopback addresses of their
 * own (127.0.0.2, 127.0.0.3 …) as distinct client addresses.
 */
class ConnectionLimitsTest {
    /** The server configured from the command line {@code options} (in a temporary data folder, a free port). */
    private static TestServer start(String... options) {
        return TestServer.start(c -> {
            List<String> args = new ArrayList<>(List.of(options));
            args.addAll(List.of("--data-dir", c.engine().dataDir().toString(), "--port", "0"));
            return ServerConfig.from(Map.of(), args);
        });
    }

    private static Socket connect(TestServer s, String from) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        socket.connect(new InetSocketAddress("127.0.0.1", s.uri("/").getPort()), 5000);
        return socket;
    }

    /** Sends GET /health on the socket (kept alive) and reads the whole answer; returns its status. */
    private static int health(Socket socket) throws IOException {
        socket.setSoTimeout(5000);
        socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        InputStream in = socket.getInputStream();
        String head = readHead(in);
        int length = 0;
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).strip());
            }
        }
        in.readNBytes(length);
        return Integer.parseInt(head.split(" ")[1]);
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            b.append((char) c);
            if (b.toString().endsWith("\r\n\r\n")) {
                return b.toString();
            }
        }
        throw new IOException("closed before the head: " + b);
    }

    /** Waits up to {@code within} for the server to close the socket; true when it did. */
    private static boolean closedByServer(Socket socket, Duration within) throws IOException {
        socket.setSoTimeout((int) within.toMillis());
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
    }

    @Test
    void aConnectionWithoutACompleteRequestHeadIsClosedAtTheDeadline() throws Exception {
        try (TestServer s = start("--head-timeout-seconds", "2");
             Socket slow = connect(s, "127.0.0.2");
             Socket silent = connect(s, "127.0.0.2");
             Socket good = connect(s, "127.0.0.2")) {
            slow.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 12".getBytes(StandardCharsets.US_ASCII));
            long t0 = System.nanoTime();
            assertEquals(200, health(good), "a client that sends its head at once is served");
            assertTrue(closedByServer(slow, Duration.ofSeconds(6)), "the partial head is cut off");
            assertTrue(closedByServer(silent, Duration.ofSeconds(2)), "the silent connection is cut off");
            long waited = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(waited >= 1500 && waited < 7000, "closed at the 2 s deadline, after " + waited + " ms");
            // the deadline is for the first head only: a kept-alive connection that was served stays open
            assertTrue(!closedByServer(good, Duration.ofSeconds(1)), "the served connection is kept alive");
            assertEquals(200, health(good));
        }
    }

    @Test
    void anAddressAtItsCapIsRefusedWhileOthersAreServedAndTrustedProxiesAreExempt() throws Exception {
        try (TestServer s = start("--max-connections-per-address", "4", "--trusted-proxies", "127.0.0.4")) {
            List<Socket> open = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    Socket k = connect(s, "127.0.0.3");
                    open.add(k);
                    assertEquals(200, health(k), "connection " + i + " of the address is served");
                }
                Socket fifth = connect(s, "127.0.0.3");
                open.add(fifth);
                assertTrue(closedByServer(fifth, Duration.ofSeconds(5)),
                        "a fifth connection of an address whose four connections are all in use is closed");
                Socket other = connect(s, "127.0.0.5");
                open.add(other);
                assertEquals(200, health(other), "another address is served");
                for (int i = 0; i < 6; i++) {
                    Socket p = connect(s, "127.0.0.4");
                    open.add(p);
                    assertEquals(200, health(p), "the trusted proxy's connection " + i + " is served");
                }
                // a connection of the capped address that is closed makes room again
                open.getFirst().close();
                long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                int status = -1;
                while (status != 200 && System.nanoTime() < until) {
                    try (Socket again = connect(s, "127.0.0.3")) {
                        status = health(again);
                    } catch (IOException e) {
                        Thread.sleep(100);
                    }
                }
                assertEquals(200, status, "room again after a connection closed");
            } finally {
                for (Socket k : open) {
                    k.close();
                }
            }
        }
    }
}
