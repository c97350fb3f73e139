package org.agentworkspace.testkit.realcli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The golden recordings of the real CLIs shipped in this jar ({@code org/agentworkspace/testkit/recordings/}): the
 * raw stdout stream, the history files written under HOME, and {@code meta.json}. Use this class rather than
 * {@code getResource} from another module: the recordings are module-private resources.
 *
 * <p>Providers: claude, codex, gemini, qwen, opencode, grok. Scenarios: {@code plain}, {@code tool-write},
 * {@code resume} (not for grok). The CLIs ran with cwd {@code /tmp/aw-project} and HOME {@code /tmp/aw-home}.
 */
public final class Recordings {

    private static final String ROOT = "/org/agentworkspace/testkit/recordings/";
    public static final List<String> PROVIDERS = List.of("claude", "codex", "gemini", "qwen", "opencode", "grok");
    public static final List<String> SCENARIOS = List.of("plain", "tool-write", "resume");
    /** The working directory every recorded run used. */
    public static final String PROJECT_PLACEHOLDER = "/tmp/aw-project";
    /** The HOME every recorded run used. */
    public static final String HOME_PLACEHOLDER = "/tmp/aw-home";

    private Recordings() {
    }

    /** Whether a recording exists (grok has no resume). */
    public static boolean exists(String provider, String scenario) {
        return open(provider, scenario, "meta.json").map(in -> {
            try (in) {
                return true;
            } catch (IOException e) {
                return true;
            }
        }).orElse(false);
    }

    /** A file of a recording, e.g. {@code "stream.jsonl"} or {@code "home/.claude/projects/..."}. */
    public static Optional<InputStream> open(String provider, String scenario, String relativePath) {
        if (relativePath.contains("..")) {
            throw new IllegalArgumentException("relative path must not contain ..: " + relativePath);
        }
        return Optional.ofNullable(Recordings.class.getResourceAsStream(
                ROOT + provider + "/" + scenario + "/" + relativePath));
    }

    /** The recorded stdout, byte for byte. */
    public static String stream(String provider, String scenario) {
        return read(provider, scenario, "stream.jsonl");
    }

    /** The recorded stdout split into lines. */
    public static List<String> streamLines(String provider, String scenario) {
        return stream(provider, scenario).lines().toList();
    }

    /** {@code meta.json} (cli version, argv, env, session id, ...). */
    public static JsonNode meta(String provider, String scenario) {
        try {
            return new ObjectMapper().readTree(read(provider, scenario, "meta.json"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Relative paths (under the recording) of the history files, e.g. {@code home/.codex/sessions/...}. */
    public static List<String> historyFiles(String provider, String scenario) {
        List<String> out = new ArrayList<>();
        meta(provider, scenario).path("historyFiles").forEach(n -> out.add(n.asText()));
        return out;
    }

    /**
     * Copies the recorded HOME files into {@code targetHome} (relative paths kept), so a history reader can be
     * pointed at it. Returns the copied files.
     */
    public static List<Path> copyHome(String provider, String scenario, Path targetHome) {
        List<Path> copied = new ArrayList<>();
        for (String rel : historyFiles(provider, scenario)) {
            if (!rel.startsWith("home/")) {
                continue;
            }
            Path dst = targetHome.resolve(rel.substring("home/".length()));
            try (InputStream in = open(provider, scenario, rel).orElseThrow(
                    () -> new IllegalStateException("missing recorded file " + rel))) {
                Files.createDirectories(dst.getParent());
                Files.copy(in, dst, StandardCopyOption.REPLACE_EXISTING);
                copied.add(dst);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return copied;
    }

    private static String read(String provider, String scenario, String file) {
        try (InputStream in = open(provider, scenario, file).orElseThrow(() -> new IllegalArgumentException(
                "no recording " + provider + "/" + scenario + "/" + file))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
