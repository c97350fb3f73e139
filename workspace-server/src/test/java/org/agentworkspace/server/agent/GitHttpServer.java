package org.agentworkspace.server.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A smart-HTTP git server for tests: the JDK HTTP server in front of {@code git http-backend} (CGI) serving the bare
 * repositories under a root. It demands HTTP Basic authentication (user {@code x-access-token}, password the token)
 * and records every request line and the credentials it saw.
 */
final class GitHttpServer implements AutoCloseable {
    private final HttpServer server;
    private final Path root;
    private final String token;
    final List<String> requests = Collections.synchronizedList(new ArrayList<>());

    GitHttpServer(Path root, String token) throws IOException {
        this.root = root;
        this.token = token;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            requests.add(ex.getRequestMethod() + " " + ex.getRequestURI());
            String expected = "Basic " + Base64.getEncoder().encodeToString(("x-access-token:" + token)
                    .getBytes(StandardCharsets.UTF_8));
            if (!expected.equals(auth)) {
                ex.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"git\"");
                ex.sendResponseHeaders(401, -1);
                return;
            }
            ProcessBuilder pb = new ProcessBuilder("git", "http-backend");
            Map<String, String> env = pb.environment();
            env.put("GIT_PROJECT_ROOT", root.toString());
            env.put("GIT_HTTP_EXPORT_ALL", "1");
            env.put("REQUEST_METHOD", ex.getRequestMethod());
            env.put("PATH_INFO", ex.getRequestURI().getPath());
            env.put("QUERY_STRING", ex.getRequestURI().getRawQuery() == null ? "" : ex.getRequestURI().getRawQuery());
            env.put("REMOTE_USER", "x-access-token");
            env.put("REMOTE_ADDR", "127.0.0.1");
            String type = ex.getRequestHeaders().getFirst("Content-Type");
            if (type != null) {
                env.put("CONTENT_TYPE", type);
            }
            String enc = ex.getRequestHeaders().getFirst("Content-Encoding");
            if (enc != null) {
                env.put("HTTP_CONTENT_ENCODING", enc);
            }
            String proto = ex.getRequestHeaders().getFirst("Git-Protocol");
            if (proto != null) {
                env.put("GIT_PROTOCOL", proto);
            }
            byte[] body = ex.getRequestBody().readAllBytes();
            env.put("CONTENT_LENGTH", Integer.toString(body.length));
            Process p = pb.start();
            Thread.ofVirtual().start(() -> {
                try (OutputStream in = p.getOutputStream()) {
                    in.write(body);
                } catch (IOException e) {
                    // the backend closed its stdin
                }
            });
            Thread.ofVirtual().start(() -> {
                try (InputStream err = p.getErrorStream()) {
                    err.transferTo(OutputStream.nullOutputStream());
                } catch (IOException e) {
                    // ignore
                }
            });
            byte[] out;
            try (InputStream stdout = p.getInputStream()) {
                out = stdout.readAllBytes();
            }
            int status = 200;
            int i = 0;
            while (true) {
                int nl = indexOf(out, i);
                String line = new String(out, i, nl - i, StandardCharsets.ISO_8859_1).replace("\r", "");
                i = nl + 1;
                if (line.isEmpty()) {
                    break;
                }
                int colon = line.indexOf(':');
                String name = line.substring(0, colon).strip();
                String value = line.substring(colon + 1).strip();
                if (name.equalsIgnoreCase("Status")) {
                    status = Integer.parseInt(value.split(" ")[0]);
                } else {
                    ex.getResponseHeaders().add(name, value);
                }
            }
            ByteArrayOutputStream rest = new ByteArrayOutputStream();
            rest.write(out, i, out.length - i);
            ex.sendResponseHeaders(status, rest.size() == 0 ? -1 : rest.size());
            if (rest.size() > 0) {
                ex.getResponseBody().write(rest.toByteArray());
            }
            p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return b.length;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
