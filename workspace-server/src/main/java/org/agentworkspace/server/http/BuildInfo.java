package org.agentworkspace.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Version and install mode, reported by {@code /health}.
 *
 * <p>The install mode, first match wins: the {@code AW_INSTALL_MODE} environment variable when it names a mode;
 * {@code docker} when {@code /.dockerenv} exists or PID 1's cgroup names a container runtime; {@code npm-global}
 * when the server's code lives under a {@code node_modules} folder; {@code git} when a folder above the code holds a
 * {@code .git} entry (a source checkout); otherwise {@code runtime-dir}.
 */
public record BuildInfo(String version, String installMode) {
    static final Set<String> MODES = Set.of("git", "npm-global", "runtime-dir", "docker");

    public static BuildInfo detect(Map<String, String> env) {
        return new BuildInfo(readVersion(), installMode(env, codeLocation(), Path.of("/")));
    }

    static String readVersion() {
        try (InputStream in = BuildInfo.class.getResourceAsStream("/org/agentworkspace/server/build.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            String v = p.getProperty("version", "0.0.0");
            return v.replaceFirst("-.*$", "");
        } catch (IOException e) {
            return "0.0.0";
        }
    }

    static String installMode(Map<String, String> env, Path code, Path root) {
        String forced = env.getOrDefault("AW_INSTALL_MODE", "").toLowerCase(Locale.ROOT);
        if (MODES.contains(forced)) {
            return forced;
        }
        if (code != null) {
            for (Path p = code; p != null; p = p.getParent()) {
                Path name = p.getFileName();
                if (name != null && name.toString().equals("node_modules")) {
                    return "npm-global";
                }
            }
            for (Path p = code; p != null; p = p.getParent()) {
                if (Files.exists(p.resolve(".git"))) {
                    return "git";
                }
            }
        }
        if (Files.exists(root.resolve(".dockerenv")) || cgroupNamesContainer(root.resolve("proc/1/cgroup"))) {
            return "docker";
        }
        return "runtime-dir";
    }

    /**
     * The source checkout the server's code lives in: the nearest folder above the code holding a {@code .git}
     * entry (a folder, or a file in a linked worktree), or null.
     */
    public static Path checkoutRoot() {
        Path code = codeLocation();
        for (Path p = code; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve(".git"))) {
                return p;
            }
        }
        return null;
    }

    private static boolean cgroupNamesContainer(Path cgroup) {
        try {
            String s = Files.readString(cgroup);
            return s.contains("docker") || s.contains("containerd") || s.contains("kubepods") || s.contains("libpod");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static Path codeLocation() {
        try {
            var src = BuildInfo.class.getProtectionDomain().getCodeSource();
            return src == null ? null : Path.of(src.getLocation().toURI()).toAbsolutePath();
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
