package org.agentworkspace.testkit.git;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An HTTP endpoint on loopback that answers {@code 401} with a Basic challenge to every request and remembers each
 * request line and every {@code Authorization} header it was sent: a git remote for checking where credentials go
 * (a client that sends them after the challenge shows up in {@link #authorizations()}).
 */
public final class AuthWall implements AutoCloseable {
    private final ServerSocket server;
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final Thread thread;

    public AuthWall() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        thread = Thread.ofVirtual().name("auth-wall").start(this::serve);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String origin() {
        return "http://127.0.0.1:" + port();
    }

    /** The values of the Authorization headers received, in order (live view). */
    public List<String> authorizations() {
        return authorizations;
    }

    /** The request lines received, in order (live view). */
    public List<String> requests() {
        return requests;
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                        StandardCharsets.ISO_8859_1));
                requests.add(String.valueOf(in.readLine()));
                String line;
                while ((line = in.readLine()) != null && !line.isEmpty()) {
                    if (line.regionMatches(true, 0, "Authorization:", 0, 14)) {
                        authorizations.add(line.substring(14).strip());
                    }
                }
                OutputStream out = socket.getOutputStream();
                out.write(("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\n"
                        + "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException e) {
                // closed, or the client went away
            }
        }
    }

    @Override
    public void close() throws InterruptedException, IOException {
        server.close();
        thread.join(5000);
    }
}
