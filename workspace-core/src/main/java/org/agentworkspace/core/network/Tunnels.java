package org.agentworkspace.core.network;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.providers.ChildProcess;

/**
 * One public tunnel to the service at a time, through {@code cloudflared} (a quick tunnel, no account needed) or, when
 * that is not installed, {@code ngrok} (which needs its own authtoken configured). The tool is looked up in the
 * service's {@code cli-bin} folder, then on {@code PATH}; it is started with an argv list and an allow-listed
 * environment, its public URL is read from its log, and stopping kills its whole process tree. When the tool exits
 * by itself the tunnel is reported inactive and the listener hears of it.
 */
public final class Tunnels implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Tunnels.class.getName());
    private static final List<String> TOOLS = List.of("cloudflared", "ngrok");
    private static final Pattern CLOUDFLARED_URL = Pattern.compile("https://[a-z0-9-]+\\.trycloudflare\\.com\\b");
    private static final Pattern NGROK_URL = Pattern.compile("\"url\"\\s*:\\s*\"(https://[A-Za-z0-9.-]+)\"");
    private static final List<String> ENV_ALLOWED = List.of("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL",
            "TMPDIR", "XDG_CONFIG_HOME", "NGROK_AUTHTOKEN", "NGROK_CONFIG", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY",
            "https_proxy", "http_proxy", "no_proxy");
    private static final int TAIL_LINES = 20;

    /** What the tunnel looks like now. */
    public record State(boolean active, String provider, String url) {
        public static final State INACTIVE = new State(false, null, null);
    }

    private final Map<String, String> environment;
    private final List<Path> searchDirs;
    private final Duration startTimeout;
    private final Consumer<State> listener;

    private ChildProcess child;
    private State state = State.INACTIVE;

    /**
     * @param environment the service's environment (PATH for the lookup; the child gets an allow-listed part)
     * @param cliBin      the folder where the service installs CLIs, searched before PATH (may be null)
     * @param startTimeout how long the tool may take to print its public URL
     * @param listener    told of every change (opened, closed, died), for example to allow the tunnel's origin
     */
    public Tunnels(Map<String, String> environment, Path cliBin, Duration startTimeout, Consumer<State> listener) {
        this.environment = Map.copyOf(environment);
        List<Path> dirs = new ArrayList<>();
        if (cliBin != null) {
            dirs.add(cliBin);
            dirs.add(cliBin.resolve("node_modules").resolve(".bin"));
        }
        for (String p : environment.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin").split(":")) {
            if (!p.isBlank()) {
                dirs.add(Path.of(p));
            }
        }
        this.searchDirs = List.copyOf(dirs);
        this.startTimeout = Objects.requireNonNull(startTimeout);
        this.listener = Objects.requireNonNull(listener);
    }

    /** The installed tunnel tool that would be used, if any: its name and absolute path. */
    public Optional<Map.Entry<String, Path>> detect() {
        for (String tool : TOOLS) {
            for (Path dir : searchDirs) {
                Path candidate = dir.resolve(tool);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(Map.entry(tool, candidate.toAbsolutePath()));
                }
            }
        }
        return Optional.empty();
    }

    /** The current state (inactive once the tool has exited). */
    public synchronized State state() {
        if (child != null && !child.isAlive()) {
            exitedByItself(child);
        }
        return state;
    }

    /**
     * Opens a tunnel to {@code localUrl} (for example {@code http://127.0.0.1:3001}), or returns the open one.
     *
     * @throws WorkspaceException.Unavailable {@code TUNNEL_UNAVAILABLE} when no tool is installed,
     *                                        {@code TUNNEL_FAILED} when it gives no URL in time or exits
     */
    public synchronized State open(String localUrl) {
        if (state().active()) {
            return state;
        }
        Map.Entry<String, Path> tool = detect().orElseThrow(() -> new WorkspaceException.Unavailable(
                NetworkErrorCodes.TUNNEL_UNAVAILABLE, "no tunnel tool is installed: install cloudflared (or ngrok"
                + " with an authtoken) on the PATH or in the service's cli-bin folder", null));
        String name = tool.getKey();
        List<String> argv = name.equals("cloudflared")
                ? List.of(tool.getValue().toString(), "tunnel", "--no-autoupdate", "--url", localUrl)
                : List.of(tool.getValue().toString(), "http", "--log", "stdout", "--log-format", "json", localUrl);
        CompletableFuture<String> url = new CompletableFuture<>();
        Deque<String> tail = new ArrayDeque<>();
        Pattern pattern = name.equals("cloudflared") ? CLOUDFLARED_URL : NGROK_URL;
        ChildProcess started;
        try {
            started = ChildProcess.start(argv, childEnvironment(), null, (stream, line) -> {
                synchronized (tail) {
                    tail.addLast(line.length() > 300 ? line.substring(0, 300) : line);
                    if (tail.size() > TAIL_LINES) {
                        tail.removeFirst();
                    }
                }
                Matcher m = pattern.matcher(line);
                if (m.find()) {
                    url.complete(m.groupCount() > 0 ? m.group(1) : m.group());
                }
            });
        } catch (IOException e) {
            throw new WorkspaceException.Unavailable(NetworkErrorCodes.TUNNEL_FAILED,
                    name + " could not be started", e);
        }
        String publicUrl;
        try {
            publicUrl = url.applyToEither(exited(started), u -> u).get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started.close();
            throw new WorkspaceException.Unavailable(NetworkErrorCodes.TUNNEL_FAILED, "interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            publicUrl = null;
        }
        if (publicUrl == null || !started.isAlive()) {
            if (!started.isAlive()) {
                // it exited: the reader threads may not have taken its last lines yet (they carry the reason)
                try {
                    started.waitFor(Duration.ofMillis(1));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            started.close();
            String last;
            synchronized (tail) {
                last = tail.isEmpty() ? "(no output)" : tail.peekLast();
            }
            throw new WorkspaceException.Unavailable(NetworkErrorCodes.TUNNEL_FAILED, name
                    + " gave no public URL within " + startTimeout.toSeconds() + " s; its last line: " + last, null);
        }
        child = started;
        state = new State(true, name, URI.create(publicUrl).toString());
        LOG.log(System.Logger.Level.INFO, "tunnel open through " + name + ": " + state.url());
        listener.accept(state);
        ChildProcess opened = started;
        started.onExit().thenRun(() -> exitedByItself(opened));
        return state;
    }

    private synchronized void exitedByItself(ChildProcess which) {
        if (child == which) {
            LOG.log(System.Logger.Level.WARNING, "the " + state.provider() + " tunnel exited by itself");
            child.close();
            child = null;
            state = State.INACTIVE;
            listener.accept(state);
        }
    }

    /** Stops the service's tunnel when it closes. */
    @Override
    public void close() {
        stop();
    }

    /** Closes the tunnel (its whole process tree); fine when none is open. */
    public synchronized State stop() {
        if (child != null) {
            child.close();
            child = null;
        }
        if (state.active()) {
            state = State.INACTIVE;
            listener.accept(state);
        }
        return state;
    }

    private static CompletableFuture<String> exited(ChildProcess c) {
        return c.onExit().thenApply(p -> null);
    }

    private Map<String, String> childEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String k : ENV_ALLOWED) {
            String v = environment.get(k);
            if (v != null) {
                env.put(k, v);
            }
        }
        env.putIfAbsent("PATH", "/usr/local/bin:/usr/bin:/bin");
        return env;
    }
}
