package org.agentworkspace.testkit.realcli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.agentworkspace.testkit.mockllm.MockLlmServer;

/**
 * Re-records the golden streams and history files of the real CLIs against {@link MockLlmServer}.
 *
 * <p>{@code RecordCliStreams --out <recordings dir> [--providers claude,codex,...] [--port 18787]}. For each CLI it
 * runs three scenarios: {@code plain} (a plain prompt), {@code tool-write} (the write-file tool scenario in a fresh
 * project; the file must appear) and {@code resume} (a second turn of the plain session). Each lands in
 * {@code <out>/<provider>/<scenario>/}: {@code stream.jsonl} (stdout, byte for byte), {@code home/} (the session and
 * history files the CLI wrote under HOME, relative paths kept) and {@code meta.json}.
 *
 * <p>The CLIs run with cwd {@value #PROJECT} and HOME {@value #HOME}: the placeholders are the real paths, so nothing
 * is rewritten (not even inside opencode's SQLite database). Both are deleted and recreated by this tool.
 */
public final class RecordCliStreams {

    private static final System.Logger LOG = System.getLogger(RecordCliStreams.class.getName());
    static final String PROJECT = "/tmp/aw-project";
    static final String HOME = "/tmp/aw-home";
    /** The key the recordings were made with: not a secret, the mock accepts anything. */
    static final String MOCK_KEY = "sk-aw-mock-not-a-secret";
    static final String PLAIN_PROMPT = "Say hello to the recording";
    static final String TOOL_PROMPT = "Create the file [[mock:tool:write_file path=hello.txt content=hello-from-mock]]";
    static final String RESUME_PROMPT = "And now a second turn";
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    /** What to keep from HOME per CLI (globs relative to HOME). */
    private static final Map<String, List<String>> KEEP = Map.of(
            "claude", List.of(".claude/projects/**", ".claude/history.jsonl"),
            "codex", List.of(".codex/sessions/**", ".codex/session_index.jsonl", ".codex/history.jsonl",
                    ".codex/config.toml"),
            "gemini", List.of(".gemini/tmp/**", ".gemini/projects.json", ".gemini/history/**",
                    ".gemini/settings.json"),
            "qwen", List.of(".qwen/projects/**", ".qwen/tmp/**", ".qwen/settings.json"),
            "opencode", List.of(".local/share/opencode/opencode.db", ".local/share/opencode/opencode.db-wal",
                    ".local/share/opencode/opencode.db-shm", ".local/share/opencode/storage/**",
                    ".config/opencode/opencode.json"),
            "grok", List.of());

    private final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private final Path out;
    private final MockLlmServer mock;

    private RecordCliStreams(Path out, MockLlmServer mock) {
        this.out = out;
        this.mock = mock;
    }

    public static void main(String[] args) throws IOException {
        Path out = null;
        List<String> providers = RealCli.SPECS.stream().map(RealCli.Spec::id).toList();
        int port = 18787;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--providers" -> providers = List.of(args[++i].split(","));
                case "--port" -> port = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (out == null) {
            throw new IllegalArgumentException("usage: RecordCliStreams --out DIR [--providers a,b] [--port N]");
        }
        List<String> failures = new ArrayList<>();
        try (MockLlmServer mock = MockLlmServer.builder().port(port).build().start()) {
            RecordCliStreams r = new RecordCliStreams(out, mock);
            for (String p : providers) {
                try {
                    r.record(p);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.ERROR, "recording " + p + " failed", e);
                    failures.add(p + ": " + e.getMessage());
                }
            }
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("recordings failed: " + failures);
        }
    }

    private void record(String provider) throws IOException {
        Path home = Path.of(HOME);
        Path project = Path.of(PROJECT);
        Path homeTurn1 = Path.of(HOME + ".turn1");
        Path projectTurn1 = Path.of(PROJECT + ".turn1");
        for (Path p : List.of(home, project, homeTurn1, projectTurn1)) {
            deleteTree(p);
        }
        deleteTree(out.resolve(provider));
        String version = cliVersion(provider);

        RealCli.Headless h = fresh(provider, home, project);
        RealCli.Result plain = h.run(h.command(PLAIN_PROMPT, false), TIMEOUT);
        check(provider, "plain", plain);
        String session = h.sessionId(plain.stdout()).orElse("");
        save(provider, "plain", h, h.command(PLAIN_PROMPT, false), plain, version, session, Optional.empty());

        Files.move(home, homeTurn1);
        Files.move(project, projectTurn1);
        h = fresh(provider, home, project);
        RealCli.Result tool = h.run(h.command(TOOL_PROMPT, true), TIMEOUT);
        check(provider, "tool-write", tool);
        Path written = project.resolve("hello.txt");
        if (!Files.exists(written)) {
            throw new IllegalStateException(provider + " tool-write: " + written + " was not created; stderr: "
                    + tail(tool.stderr()));
        }
        save(provider, "tool-write", h, h.command(TOOL_PROMPT, true), tool, version,
                h.sessionId(tool.stdout()).orElse(""), Optional.of(Files.readString(written)));
        deleteTree(home);
        deleteTree(project);
        Files.move(homeTurn1, home);
        Files.move(projectTurn1, project);

        if (h.spec().resumable()) {
            if (session.isEmpty()) {
                throw new IllegalStateException(provider + ": no session id in the plain stream");
            }
            RealCli.Result resume = h.run(h.resumeCommand(session, RESUME_PROMPT, false), TIMEOUT);
            check(provider, "resume", resume);
            save(provider, "resume", h, h.resumeCommand(session, RESUME_PROMPT, false), resume, version,
                    h.sessionId(resume.stdout()).orElse(""), Optional.empty());
        }
        deleteTree(home);
        deleteTree(project);
    }

    private RealCli.Headless fresh(String provider, Path home, Path project) throws IOException {
        Files.createDirectories(project);
        run(List.of("git", "init", "-q", "-b", "main", project.toString()));
        return RealCli.prepare(provider, home, project, mock.baseUrl(), MOCK_KEY);
    }

    private static void check(String provider, String scenario, RealCli.Result r) {
        if (r.exitCode() != 0 || r.stdout().isBlank()) {
            throw new IllegalStateException(provider + " " + scenario + " exited " + r.exitCode() + "; stderr: "
                    + tail(r.stderr()));
        }
    }

    private void save(String provider, String scenario, RealCli.Headless h, List<String> argv, RealCli.Result r,
            String version, String session, Optional<String> fileContent) throws IOException {
        Path dir = out.resolve(provider).resolve(scenario);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("stream.jsonl"), r.stdout(), StandardCharsets.UTF_8);
        List<String> copied = copyHistory(provider, h.home(), dir.resolve("home"));
        if (provider.equals("grok")) {
            Path settings = h.project().resolve(".grok/settings.json");
            if (Files.exists(settings)) {
                Path target = dir.resolve("project/.grok/settings.json");
                Files.createDirectories(target.getParent());
                Files.copy(settings, target, StandardCopyOption.REPLACE_EXISTING);
                copied.add("project/.grok/settings.json");
            }
        }
        ObjectNode meta = json.createObjectNode();
        meta.put("provider", provider);
        meta.put("scenario", scenario);
        meta.put("npmPackage", h.spec().npmPackage());
        meta.put("cliVersion", version);
        meta.put("node", RealCli.NODE_PACKAGE + "@" + RealCli.NODE_VERSION);
        ArrayNode a = meta.putArray("argv");
        a.add(h.spec().binary());
        argv.subList(1, argv.size()).forEach(a::add);
        meta.put("cwd", PROJECT);
        meta.put("home", HOME);
        meta.put("paths", "the CLI ran with cwd " + PROJECT + " and HOME " + HOME
                + "; these are the placeholders, so every file is kept byte for byte");
        ObjectNode env = meta.putObject("env");
        String cache = RealCli.cacheDir().toString();
        h.env().forEach((k, v) -> env.put(k, k.contains("KEY") || k.contains("TOKEN") ? "<mock key>"
                : v.replace(cache, "${AW_E2E_CACHE}")));
        meta.put("mockBaseUrl", mock.baseUrl());
        meta.put("apiKey", "all keys were " + MOCK_KEY + " (the mock accepts any key); no real credential exists");
        meta.put("date", LocalDate.now(ZoneOffset.UTC).toString());
        meta.put("exitCode", r.exitCode());
        meta.put("durationMs", r.duration().toMillis());
        meta.put("sessionId", session);
        meta.put("prompt", switch (scenario) {
            case "plain" -> PLAIN_PROMPT;
            case "tool-write" -> TOOL_PROMPT;
            default -> RESUME_PROMPT;
        });
        fileContent.ifPresent(c -> meta.put("writtenFile", "hello.txt").put("writtenContent", c));
        ArrayNode files = meta.putArray("historyFiles");
        copied.forEach(files::add);
        Files.writeString(dir.resolve("meta.json"), json.writeValueAsString(meta) + "\n");
        LOG.log(System.Logger.Level.INFO, "recorded {0}/{1}: {2} stream lines, {3} history files, {4} ms",
                provider, scenario, r.stdoutLines().size(), copied.size(), r.duration().toMillis());
    }

    private static List<String> copyHistory(String provider, Path home, Path target) throws IOException {
        List<PathMatcher> keep = KEEP.getOrDefault(provider, List.of()).stream()
                .map(g -> FileSystems.getDefault().getPathMatcher("glob:" + g)).toList();
        List<String> copied = new ArrayList<>();
        if (keep.isEmpty() || !Files.isDirectory(home)) {
            return copied;
        }
        try (Stream<Path> files = Files.walk(home)) {
            for (Path f : files.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).sorted().toList()) {
                Path rel = home.relativize(f);
                if (keep.stream().anyMatch(m -> m.matches(rel))) {
                    Path dst = target.resolve(rel.toString());
                    Files.createDirectories(dst.getParent());
                    Files.copy(f, dst, StandardCopyOption.REPLACE_EXISTING);
                    copied.add("home/" + rel);
                }
            }
        }
        return copied;
    }

    private static String cliVersion(String provider) {
        Path bin = RealCli.ensureInstalled(provider);
        Path node = RealCli.ensureNode();
        try {
            ProcessBuilder pb = new ProcessBuilder(bin.toString(), "--version").redirectErrorStream(true);
            pb.environment().put("PATH", node + ":" + pb.environment().getOrDefault("PATH", "/usr/bin:/bin"));
            Path tmpHome = Files.createTempDirectory("aw-version-home");
            pb.environment().put("HOME", tmpHome.toString());
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            Process p = pb.start();
            String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor();
            deleteTree(tmpHome);
            List<String> lines = s.lines().toList();
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static void run(List<String> argv) throws IOException {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (p.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", argv) + " failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    private static String tail(String s) {
        return s.length() > 1500 ? s.substring(s.length() - 1500) : s;
    }

}
