package org.agentworkspace.core.providers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;

import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.ProviderDescriptor;
import org.agentworkspace.core.json.JsonMappers;

/**
 * Version probes and the per-provider rules for "authenticated". A version is probed once per binary file (path,
 * size and modification time); cursor's login check runs at most every 30 seconds.
 */
final class StatusProbe {
    private static final System.Logger LOG = System.getLogger(StatusProbe.class.getName());
    static final Pattern VERSION = Pattern.compile("(\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.]+)?)");
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration CURSOR_STATUS_TTL = Duration.ofSeconds(30);
    static final JsonMapper LENIENT = JsonMappers.builder()
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .build();

    private final ProviderPaths paths;
    private final LaunchContext launch;
    private final Clock clock;
    private final Map<String, Probe> versions = new ConcurrentHashMap<>();
    private final Map<String, Cached> statusLogin = new ConcurrentHashMap<>();

    StatusProbe(ProviderPaths paths, LaunchContext launch, Clock clock) {
        this.paths = paths;
        this.launch = launch;
        this.clock = clock;
    }

    /** A probe result for one binary file state. */
    record Probe(String fileKey, boolean ok, String version) {
    }

    private record Cached(long at, Optional<String> source) {
    }

    /** Runs {@code <binary> --version} (cached per file state): whether it ran, and the version it printed. */
    Probe version(Path binary) {
        String key = fileKey(binary);
        Probe cached = versions.get(binary.toString());
        if (cached != null && cached.fileKey().equals(key)) {
            return cached;
        }
        Probe p = probe(binary, key);
        versions.put(binary.toString(), p);
        return p;
    }

    private Probe probe(Path binary, String key) {
        try {
            ChildProcess.Result r = ChildProcess.run(List.of(binary.toString(), "--version"), probeEnv(binary),
                    paths.home().toFile().isDirectory() ? paths.home() : null, PROBE_TIMEOUT);
            if (!r.ok()) {
                LOG.log(System.Logger.Level.WARNING, "{0} --version failed (exit {1}{2})", binary, r.exitCode(),
                        r.timedOut() ? ", timed out" : "");
                return new Probe(key, false, null);
            }
            return new Probe(key, true, parseVersion(r.stdout()).or(() -> parseVersion(r.stderr())).orElse(null));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot run {0} --version: {1}", binary, e.getMessage());
            return new Probe(key, false, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Probe("interrupted", false, null);
        }
    }

    /** The first {@code X.Y.Z[-pre]} in the output. */
    static Optional<String> parseVersion(String out) {
        Matcher m = VERSION.matcher(out == null ? "" : out);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /**
     * The environment of a probe: what a run inherits (the launch context's allow-list) with the binary's folder
     * first on PATH (so an npm-installed CLI finds the node installed beside it), and the CLIs' update and
     * telemetry switches. No credential.
     */
    Map<String, String> probeEnv(Path binary) {
        Map<String, String> env = new LinkedHashMap<>(launch.baseEnv());
        String path = env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.put("PATH", binary.getParent() + ":" + path);
        env.put("HOME", paths.home().toString());
        env.put("TERM", "dumb");
        env.put("NO_COLOR", "1");
        env.put("DO_NOT_TRACK", "1");
        env.put("NO_UPDATE_NOTIFIER", "1");
        env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        env.put("DISABLE_AUTOUPDATER", "1");
        env.put("GEMINI_CLI_HOME", paths.providerDir("gemini").toString());
        env.put("GEMINI_CLI_NO_RELAUNCH", "true");
        env.put("QWEN_CODE_NO_RELAUNCH", "1");
        env.put("OPENCODE_DISABLE_AUTOUPDATE", "1");
        return env;
    }

    private static String fileKey(Path binary) {
        try {
            BasicFileAttributes a = Files.readAttributes(binary, BasicFileAttributes.class);
            Path real = binary.toRealPath();
            return real + ":" + a.size() + ":" + a.lastModifiedTime().toMillis();
        } catch (IOException e) {
            return "missing";
        }
    }

    /**
     * Where the CLI's own login or config holds a credential its child will use, shown with {@code ~}; empty when
     * none is found. (A stored key is checked by the caller first.)
     */
    Optional<String> cliLogin(ProviderFacts facts, Optional<Path> binary) {
        for (ProviderDescriptor.LoginCheck check : facts.descriptor().logins()) {
            Optional<String> found = switch (check.kind()) {
                case JSON_TEXT -> jsonText(paths.resolve(facts.id(), check.file()),
                        check.fields().toArray(String[]::new));
                case CLAUDE_OAUTH -> claudeOauth(paths.resolve(facts.id(), check.file()));
                case NON_EMPTY_JSON_OBJECT -> nonEmptyObject(paths.resolve(facts.id(), check.file()));
                case ENV_FILE_VARIABLE -> envFile(paths.resolve(facts.id(), check.file()), check.fields().get(0));
                case STATUS_COMMAND -> binary.isPresent() ? statusCommand(binary.get(), facts.binary() + " status")
                        : Optional.empty();
            };
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    /** {@code claudeAiOauth}: a refresh token, or an access token that has not expired. */
    private Optional<String> claudeOauth(Path file) {
        return readJson(file).flatMap(n -> {
            JsonNode o = n.path("claudeAiOauth");
            boolean refresh = nonEmpty(o.path("refreshToken"));
            boolean access = nonEmpty(o.path("accessToken"))
                    && (!o.path("expiresAt").isNumber() || o.path("expiresAt").asLong() > clock.millis());
            return refresh || access ? Optional.of(paths.display(file)) : Optional.empty();
        });
    }

    /** A non-empty string at {@code fields} in the JSON file. */
    private Optional<String> jsonText(Path file, String... fields) {
        return readJson(file).flatMap(n -> {
            JsonNode v = n;
            for (String f : fields) {
                v = v.path(f);
            }
            return nonEmpty(v) ? Optional.of(paths.display(file) + " (" + String.join(".", fields) + ")")
                    : Optional.empty();
        });
    }

    private Optional<String> nonEmptyObject(Path file) {
        return readJson(file).filter(n -> n.isObject() && !n.isEmpty()).map(n -> paths.display(file));
    }

    private Optional<String> envFile(Path file, String name) {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String l = line.strip();
                if (l.startsWith("export ")) {
                    l = l.substring(7).strip();
                }
                if (l.startsWith(name + "=") && l.length() > name.length() + 1) {
                    return Optional.of(paths.display(file) + " (" + name + ")");
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static boolean nonEmpty(JsonNode v) {
        return v != null && v.isTextual() && !v.asText().isBlank();
    }

    /** A CLI file as JSON (comments allowed); empty when missing, unreadable, a link, or over 4 MiB. */
    static Optional<JsonNode> readJson(Path file) {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) > 4 << 20) {
                return Optional.empty();
            }
            return Optional.ofNullable(LENIENT.readTree(Files.readString(file, StandardCharsets.UTF_8)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** {@code <binary> status} (cursor-agent's): logged in when it exits 0 and says "Logged in". */
    private Optional<String> statusCommand(Path binary, String label) {
        Cached c = statusLogin.get(binary.toString());
        long now = clock.millis();
        if (c != null && now - c.at() < CURSOR_STATUS_TTL.toMillis()) {
            return c.source();
        }
        Optional<String> result = Optional.empty();
        try {
            ChildProcess.Result r = ChildProcess.run(List.of(binary.toString(), "status"), probeEnv(binary), null,
                    Duration.ofSeconds(10));
            String out = r.stdout().toLowerCase(Locale.ROOT);
            if (r.ok() && out.contains("logged in") && !out.contains("not logged in")) {
                result = Optional.of(label);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot run {0} status: {1}", binary, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        statusLogin.put(binary.toString(), new Cached(now, result));
        return result;
    }
}
