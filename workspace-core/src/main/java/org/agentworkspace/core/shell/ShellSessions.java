package org.agentworkspace.core.shell;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviders;
import org.agentworkspace.api.provider.BinaryLocator;
import org.agentworkspace.core.projects.ProjectRegistry;

/**
 * The interactive terminals of every user. A terminal starts in a registered project's folder and runs the login shell
 * or a provider CLI; it outlives its connection for {@link ShellSettings#detachedTtl()} so a client can reattach and
 * get the output it missed, and is killed (with its whole process tree) on close, when detached too long, or idle too
 * long.
 */
public final class ShellSessions implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ShellSessions.class.getName());
    /** Variables a terminal inherits from the server; everything else (credentials, our own settings) stays out. */
    static final List<String> INHERITED_ENV = List.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE",
            "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR");
    private static final int MAX_SIZE = 1000;

    private final ShellSettings settings;
    private final ProjectRegistry projects;
    private final AgentProviders providers;
    private final BinaryLocator locator;
    private final Map<String, String> serverEnv;
    private final LongSupplier nanos;
    private final Map<String, ShellSession> sessions = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final ScheduledExecutorService reaper;

    private ShellSessions(ShellSettings settings, ProjectRegistry projects, AgentProviders providers,
                          BinaryLocator locator, Map<String, String> serverEnv, LongSupplier nanos) {
        this.settings = settings;
        this.projects = projects;
        this.providers = providers;
        this.locator = locator;
        this.serverEnv = Map.copyOf(serverEnv);
        this.nanos = nanos;
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "shell-reaper");
            t.setDaemon(true);
            return t;
        });
        long every = settings.reapInterval().toMillis();
        reaper.scheduleWithFixedDelay(this::reapQuietly, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * @param providers the provider CLIs a terminal may run instead of the shell
     * @param locator   where their binaries are looked for ({@code <dataDir>/cli-bin}, PATH, configured)
     * @param serverEnv the server's environment; only {@link #INHERITED_ENV} passes to terminals
     */
    public static ShellSessions create(ShellSettings settings, ProjectRegistry projects, AgentProviders providers,
                                       BinaryLocator locator, Map<String, String> serverEnv) {
        return new ShellSessions(settings, projects, providers, locator, serverEnv, System::nanoTime);
    }

    public ShellSettings settings() {
        return settings;
    }

    /**
     * Starts a terminal for {@code userId} in the registered project {@code projectName}, running {@code provider}'s
     * CLI interactively when given (a provider id), else the login shell.
     *
     * @throws WorkspaceException.RateLimited when the user already runs {@link ShellSettings#maxPerUser()} terminals
     */
    public ShellSession open(String userId, String projectName, int cols, int rows, String provider) {
        if (cols < 1 || rows < 1 || cols > MAX_SIZE || rows > MAX_SIZE) {
            throw new WorkspaceException.Validation(ShellErrorCodes.INVALID_MESSAGE,
                    "cols and rows must be between 1 and " + MAX_SIZE);
        }
        Path cwd = projects.guard(projectName).root();
        List<String> argv = provider == null || provider.isEmpty() ? loginShell() : providerCommand(provider);
        synchronized (this) {
            if (running(userId) >= settings.maxPerUser()) {
                throw new WorkspaceException.RateLimited("at most " + settings.maxPerUser()
                        + " terminals per user; close one first", 30);
            }
            Pty pty;
            try {
                pty = Pty.start(argv, cwd, environment(), cols, rows);
            } catch (IOException | RuntimeException e) {
                throw new WorkspaceException.Unavailable(ShellErrorCodes.SHELL_START_FAILED,
                        "the terminal could not be started: " + e.getMessage(), e);
            }
            byte[] idBytes = new byte[16];
            random.nextBytes(idBytes);
            String id = "sh_" + HexFormat.of().formatHex(idBytes);
            ShellSession s = new ShellSession(id, userId, cwd, pty, settings.replayBytes(), nanos);
            sessions.put(id, s);
            Thread t = new Thread(s::pump, "shell-" + id.substring(0, 11));
            t.setDaemon(true);
            t.start();
            LOG.log(System.Logger.Level.INFO, "terminal " + id + " started for user " + userId + " (pid "
                    + pty.pid() + ")");
            return s;
        }
    }

    /** The user's terminal with this id; another user's terminal is not found. */
    public Optional<ShellSession> find(String userId, String id) {
        ShellSession s = id == null ? null : sessions.get(id);
        return s != null && s.userId().equals(userId) ? Optional.of(s) : Optional.empty();
    }

    /** Terminals of this user whose process still runs. */
    public int running(String userId) {
        int n = 0;
        for (ShellSession s : sessions.values()) {
            if (s.userId().equals(userId) && s.isRunning()) {
                n++;
            }
        }
        return n;
    }

    /** Ends the terminal: kills its process tree and forgets it. Returns whether every process ended. */
    public boolean close(ShellSession s) {
        sessions.remove(s.id(), s);
        return s.kill();
    }

    /** Ends every terminal of this user (the account was deleted); returns how many. */
    public int closeAllOf(String userId) {
        int n = 0;
        for (ShellSession s : new ArrayList<>(sessions.values())) {
            if (s.userId().equals(userId)) {
                close(s);
                n++;
            }
        }
        return n;
    }

    /** Kills terminals detached or idle past their limit; returns how many. */
    public int reap() {
        int n = 0;
        for (ShellSession s : new ArrayList<>(sessions.values())) {
            String why = s.reapReason(settings.detachedTtl().toNanos(), settings.idleTtl().toNanos());
            if (why != null) {
                LOG.log(System.Logger.Level.INFO, "terminal " + s.id() + " reaped: " + why);
                close(s);
                n++;
            }
        }
        return n;
    }

    private void reapQuietly() {
        try {
            reap();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "terminal reaper failed", e);
        }
    }

    /** The login shell: bash when installed, else sh. */
    List<String> loginShell() {
        for (String sh : List.of("/bin/bash", "/usr/bin/bash")) {
            if (Files.isExecutable(Path.of(sh))) {
                return List.of(sh, "-l");
            }
        }
        return List.of("/bin/sh", "-l");
    }

    private List<String> providerCommand(String id) {
        AgentProvider p = providers.find(id).orElseThrow(() -> new WorkspaceException.Validation(
                ShellErrorCodes.INVALID_MESSAGE, "unknown provider; use one of " + providers.ids()));
        Path binary = p.resolveBinary(locator).orElseThrow(() -> new WorkspaceException.Unavailable(
                ShellErrorCodes.PROVIDER_NOT_INSTALLED, "the " + id + " CLI is not installed on this host", null));
        return List.of(binary.toString());
    }

    Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String k : INHERITED_ENV) {
            String v = serverEnv.get(k);
            if (v != null) {
                env.put(k, v);
            }
        }
        env.putIfAbsent("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.putIfAbsent("LANG", "C.UTF-8");
        env.put("TERM", "xterm-256color");
        env.put("COLORTERM", "truecolor");
        return env;
    }

    /** Stops the reaper and kills every terminal. */
    @Override
    public void close() {
        reaper.shutdownNow();
        for (ShellSession s : new ArrayList<>(sessions.values())) {
            close(s);
        }
    }
}
