package org.agentworkspace.server.availability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server as a process of its own, started with the JVM flags {@code scripts/run.sh} uses (the memory and crash
 * flags of {@code scripts/jvm-opts.sh}: a 96 MB heap, exit on out-of-memory) and this test JVM's class path. Used
 * where a test holds thousands of sockets: the server's descriptors and heap are then its own, as in production.
 */
final class ServerProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

    final Process process;
    final int port;
    private final StringBuilder log;

    private ServerProcess(Process process, int port, StringBuilder log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** The flags of scripts/jvm-opts.sh that run.sh passes (memory and crash; not the start-up cache). */
    static List<String> runShJvmFlags() throws IOException, InterruptedException {
        Path script = Path.of("..", "scripts", "jvm-opts.sh").toAbsolutePath().normalize();
        ProcessBuilder pb = new ProcessBuilder("bash", "-c",
                ". \"$1\"; printf '%s' \"$AW_MEMORY_OPTS $AW_CRASH_OPTS\"", "jvm-opts", script.toString());
        pb.environment().put("AW_JDK_MAJOR", Integer.toString(Runtime.version().feature()));
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0 || out.isEmpty()) {
            throw new IllegalStateException("cannot read the JVM flags of scripts/jvm-opts.sh: " + out);
        }
        return Arrays.asList(out.split("\\s+"));
    }

    /** Starts {@code Main serve} with {@code args} (plus {@code --port 0}) and waits until it listens. */
    static ServerProcess start(Path dataDir, Path home, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(runShJvmFlags());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.agentworkspace.server.Main",
                "--port", "0", "--data-dir", dataDir.toString(), "--history-index", "false"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("HOME", home.toString());
        pb.environment().put("AW_UPNP_DISCOVERY", "127.0.0.1:9");
        pb.environment().keySet().removeIf(k -> k.startsWith("AW_") && !k.equals("AW_UPNP_DISCOVERY"));
        Process p = pb.start();
        StringBuilder log = new StringBuilder();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("server-log").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (log) {
                        log.append(line).append('\n');
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException e) {
                port.completeExceptionally(e);
            }
            port.completeExceptionally(new AssertionError("the server exited before listening"));
        });
        try {
            return new ServerProcess(p, port.get(120, TimeUnit.SECONDS), log);
        } catch (Exception e) {
            p.destroyForcibly();
            throw new AssertionError("the server did not start: " + e + "\n" + log, e);
        }
    }

    String log() {
        synchronized (log) {
            return log.toString();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
