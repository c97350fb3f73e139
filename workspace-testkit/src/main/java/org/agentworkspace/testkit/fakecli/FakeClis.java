package org.agentworkspace.testkit.fakecli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.agentworkspace.testkit.realcli.Recordings;

/**
 * Installs fake provider CLIs: POSIX {@code sh} scripts named like the real binaries that replay the streams
 * recorded from the real CLIs (see {@link Recordings}); cursor-agent, which is not on npm, replays a synthetic stream
 * written from the documented cursor stream-json format. Behaviour and the {@code AW_FAKE_*} knobs are described in
 * {@code fake-cli.sh} and docs/testkit.md.
 *
 * <pre>{@code
 * Path bin = FakeClis.install(tempDir.resolve("bin"));
 * new ProcessBuilder(FakeClis.binary(bin, "claude").toString(), "-p", "--output-format", "stream-json", "--", "hi")
 * }</pre>
 */
public final class FakeClis {

    private static final String RES = "/org/agentworkspace/testkit/fakecli/";
    private static final Pattern SESSION = Pattern.compile("\"sessionId\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern VERSION = Pattern.compile("\"cliVersion\"\\s*:\\s*\"([^\"]*)\"");

    /** Provider id → the binary name the real CLI installs. */
    public static final Map<String, String> BINARIES;

    static {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("claude", "claude");
        m.put("cursor", "cursor-agent");
        m.put("codex", "codex");
        m.put("gemini", "gemini");
        m.put("qwen", "qwen");
        m.put("opencode", "opencode");
        m.put("grok", "grok");
        BINARIES = java.util.Collections.unmodifiableMap(m);
    }

    /** How many leading lines of the plain stream precede the synthetic deltas of {@code AW_FAKE_EVENTS}. */
    private static final Map<String, Integer> EVENT_HEAD = Map.of(
            "claude", 1, "cursor", 2, "codex", 2, "gemini", 2, "qwen", 1, "opencode", 1, "grok", 1);

    private FakeClis() {
    }

    /** Installs all seven fakes into {@code dir} (created if missing) and returns {@code dir}. */
    public static Path install(Path dir) {
        return install(dir, List.copyOf(BINARIES.keySet()));
    }

    /** Installs the fakes of the given providers into {@code dir} and returns {@code dir}. */
    public static Path install(Path dir, List<String> providers) {
        for (String provider : providers) {
            String binary = BINARIES.get(provider);
            if (binary == null) {
                throw new IllegalArgumentException("unknown provider " + provider);
            }
            installAs(dir, provider, binary);
        }
        return dir;
    }

    /**
     * Installs the fake of {@code provider} under another binary name, as the CLI of a provider the testkit does not
     * know (an adapter written in a test): it replays {@code provider}'s streams and answers its arguments.
     * Returns the binary.
     */
    public static Path installAs(Path dir, String provider, String binary) {
        if (!BINARIES.containsKey(provider) || !binary.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("unknown provider " + provider + " or bad binary name " + binary);
        }
        String template = resource(RES + "fake-cli.sh");
        try {
            Files.createDirectories(dir);
            {
                Path data = dir.toAbsolutePath().resolve(".aw-fake-cli").resolve(binary.equals(BINARIES.get(provider))
                        ? provider : binary);
                if (data.toString().contains("'")) {
                    throw new IllegalArgumentException("install dir must not contain a single quote: " + dir);
                }
                Files.createDirectories(data);
                String version = "0.0.0-fake";
                for (String scenario : Recordings.SCENARIOS) {
                    String stream;
                    String meta;
                    if (provider.equals("cursor")) {
                        stream = resource(RES + "cursor/" + scenario + ".jsonl");
                        meta = resource(RES + "cursor/meta.json");
                    } else if (Recordings.exists(provider, scenario)) {
                        stream = Recordings.stream(provider, scenario);
                        meta = Recordings.meta(provider, scenario).toString();
                    } else {
                        continue;
                    }
                    Files.writeString(data.resolve(scenario + ".jsonl"), stream, StandardCharsets.UTF_8);
                    Matcher sm = SESSION.matcher(meta);
                    Files.writeString(data.resolve(scenario + ".session"), sm.find() ? sm.group(1) : "");
                    Matcher vm = VERSION.matcher(meta);
                    if (vm.find()) {
                        version = vm.group(1);
                    }
                }
                Files.writeString(data.resolve("version"), version + "\n");
                Files.writeString(data.resolve("events.awk"), resource(RES + "events/" + provider + ".awk"));
                Files.writeString(data.resolve("events.head"), EVENT_HEAD.get(provider) + "\n");
                Path script = dir.resolve(binary);
                Files.writeString(script, template.replace("@PROVIDER@", provider).replace("@DATA@", data.toString()),
                        StandardCharsets.UTF_8);
                Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
                return script;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot install the fake CLIs into " + dir, e);
        }
    }

    /** The installed fake binary of a provider inside {@code dir}. */
    public static Path binary(Path dir, String provider) {
        String b = BINARIES.get(provider);
        if (b == null) {
            throw new IllegalArgumentException("unknown provider " + provider);
        }
        return dir.resolve(b);
    }

    private static String resource(String name) {
        try (InputStream in = FakeClis.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
