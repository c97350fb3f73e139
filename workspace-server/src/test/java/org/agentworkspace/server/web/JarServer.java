package org.agentworkspace.server.web;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.agentworkspace.server.TestServer;

/**
 * The packaged server ({@code target/workspace-server.jar} and {@code target/libs}, built by {@code package} before
 * Failsafe runs) started as a process of its own on the module path, as {@code scripts/run.sh} does: a free loopback
 * port, a data folder and a {@code HOME} of its own below {@code dir}, the temporary-file folder as its project root,
 * the test's extra flags and environment variables. It is configured only as an operator can configure it: with the
 * server's command-line flags and environment. Its output (standard output and error) goes to {@code logFile} and is
 * kept in memory for the failure messages. With {@code relaunchOn42} it plays the launcher: an exit with status 42
 * starts the same command again (same port and data folder). {@link #close} stops the process and its children.
 */
final class JarServer implements AutoCloseable {
    private final List<String> cmd;
    private final Map<String, String> env;
    private final Path logFile;
    private final boolean relaunchOn42;
    private final int port;
    private final Path dataDir;
    private final StringBuilder log = new StringBuilder();
    private final List<Integer> exits = new ArrayList<>();
    private final List<CompletableFuture<Void>> listening = new ArrayList<>();
    private final AtomicInteger starts = new AtomicInteger();
    private final AtomicReference<Process> current = new AtomicReference<>();
    private volatile boolean stopping;

    private JarServer(Path dir, Path logFile, List<String> flags, Map<String, String> env, boolean relaunchOn42)
            throws IOException {
        // set by Failsafe (workspace-server/pom.xml): run these tests with verify, which packages the jar first
        String jarProperty = System.getProperty("aw.server.jar");
        assertTrue(jarProperty != null && System.getProperty("aw.server.libs") != null,
                "aw.server.jar and aw.server.libs are not set: run this test with verify (Failsafe), not test");
        Path jar = Path.of(jarProperty);
        Path libs = Path.of(System.getProperty("aw.server.libs"));
        assertTrue(Files.isRegularFile(jar), jar + " is built (the verify phase packages it first)");
        this.dataDir = Files.createDirectories(dir.resolve("data"));
        Path home = Files.createDirectories(dir.resolve("home"));
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            this.port = probe.getLocalPort();
        }
        List<String> c = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=org.xerial.sqlitejdbc,com.sun.jna",
                "-p", jar + java.io.File.pathSeparator + libs,
                "-m", "org.agentworkspace.server/org.agentworkspace.server.Main",
                "--port", String.valueOf(port), "--data-dir", dataDir.toString(),
                "--project-roots", TestServer.TMP.toString()));
        c.addAll(flags);
        this.cmd = List.copyOf(c);
        Map<String, String> e = new java.util.HashMap<>();
        // an operator's environment with a home of its own (no dotfiles of the machine's user)
        e.put("HOME", home.toString());
        // UPnP searches stay on this machine (the discard port never answers): tests send no multicast
        e.put("AW_UPNP_DISCOVERY", "127.0.0.1:9");
        e.putAll(env);
        this.env = Map.copyOf(e);
        this.logFile = logFile;
        this.relaunchOn42 = relaunchOn42;
        Files.createDirectories(logFile.getParent());
        Files.deleteIfExists(logFile);
    }

    /** Starts the server and waits until it listens (at most 3 minutes: a loaded machine starts the JVM slowly). */
    static JarServer start(Path dir, Path logFile, List<String> flags, Map<String, String> env) throws Exception {
        JarServer s = new JarServer(dir, logFile, flags, env, false);
        try {
            s.launch();
            s.waitListening(0, 180);
        } catch (Exception | Error e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** A server that is started again whenever it exits with status 42, not started yet: call {@link #launch}. */
    static JarServer relaunchingOn42(Path dir, Path logFile, List<String> flags, Map<String, String> env)
            throws IOException {
        return new JarServer(dir, logFile, flags, env, true);
    }

    String origin() {
        return "http://127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    Path dataDir() {
        return dataDir;
    }

    Path logFile() {
        return logFile;
    }

    synchronized void launch() throws IOException {
        int n = starts.getAndIncrement();
        CompletableFuture<Void> up = new CompletableFuture<>();
        listening.add(up);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        current.set(p);
        append("--- launcher: start " + (n + 1) + " (pid " + p.pid() + ")");
        // a platform thread: the server's output must be drained whatever the test's virtual threads are doing (an
        // unread pipe blocks the server's logging, and with it whatever request logs)
        Thread.ofPlatform().daemon().name("jar-server-log-" + p.pid()).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    append(line);
                    if (line.contains("listening on http://127.0.0.1:")) {
                        up.complete(null);
                    }
                }
            } catch (IOException e) {
                append("--- launcher: reading the log failed: " + e);
            }
            int status;
            try {
                status = p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            up.completeExceptionally(new AssertionError("the server exited with " + status + " before listening"));
            synchronized (this) {
                exits.add(status);
            }
            append("--- launcher: exited with " + status);
            if (relaunchOn42 && status == 42 && !stopping) {
                try {
                    launch();
                } catch (IOException e) {
                    append("--- launcher: the restart failed: " + e);
                }
            }
        });
    }

    /** Waits until the {@code start}-th process (0 the first) says it listens. */
    void waitListening(int start, int seconds) throws Exception {
        CompletableFuture<Void> up;
        synchronized (this) {
            up = listening.get(start);
        }
        try {
            up.get(seconds, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("the server did not listen within " + seconds + " s (log " + logFile + "):\n"
                    + log(), e);
        }
    }

    /** The exit statuses seen so far, in order. */
    synchronized List<Integer> exits() {
        return List.copyOf(exits);
    }

    /** How many processes were started. */
    int starts() {
        return starts.get();
    }

    String log() {
        synchronized (log) {
            return log.toString();
        }
    }

    private void append(String line) {
        synchronized (log) {
            log.append(line).append('\n');
            try {
                Files.writeString(logFile, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException ignored) {
                // the in-memory copy is what the failure messages show
            }
        }
    }

    /** Stops the server (as the operator's Ctrl+C would, forcibly after 30 s) and whatever it started. */
    @Override
    public void close() {
        stopping = true;
        Process p = current.get();
        if (p == null) {
            return;
        }
        List<ProcessHandle> children = p.descendants().toList();
        p.toHandle().destroy();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
}
