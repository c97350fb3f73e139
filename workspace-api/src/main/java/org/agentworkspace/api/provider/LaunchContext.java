package org.agentworkspace.api.provider;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where and as whom a run is launched: the engine's data directory (provider-owned config files live under
 * {@code <dataDir>/providers/<id>/}) and the few variables of the server's environment a child may inherit. Only
 * {@link #INHERITED_VARIABLES} survive construction, so the server's own secrets (other providers' keys, database
 * passwords, tokens) can never reach a child through this context.
 *
 * @param dataDir the engine's data directory (absolute)
 * @param baseEnv the inherited variables (a subset of {@link #INHERITED_VARIABLES}); {@code HOME} is the child's HOME
 * @param runningAsRoot whether the server runs as uid 0 (some CLIs refuse their full-permission mode as root without
 *     an extra switch)
 */
public record LaunchContext(Path dataDir, Map<String, String> baseEnv, boolean runningAsRoot) {

    /**
     * The allow-list: locale, identity, HOME, PATH, temp and XDG base directories, proxies and CA bundles. Nothing
     * else of the server's environment is ever passed on; in particular no credential variable.
     */
    public static final Set<String> INHERITED_VARIABLES = Set.of(
            "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
            "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
            "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
            "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS");

    public LaunchContext {
        Objects.requireNonNull(dataDir, "dataDir");
        if (!dataDir.isAbsolute()) {
            throw new IllegalArgumentException("dataDir must be absolute");
        }
        dataDir = dataDir.normalize();
        TreeMap<String, String> kept = new TreeMap<>();
        if (baseEnv != null) {
            baseEnv.forEach((k, v) -> {
                if (k != null && v != null && INHERITED_VARIABLES.contains(k) && v.indexOf('\0') < 0) {
                    kept.put(k, v);
                }
            });
        }
        baseEnv = Collections.unmodifiableMap(kept);
    }

    /**
     * A context from the server's full environment (only the allow-listed variables are kept) and the current
     * process's uid.
     */
    public static LaunchContext create(Path dataDir, Map<String, String> serverEnv) {
        return new LaunchContext(dataDir, serverEnv, currentUidIsRoot());
    }

    /** The child's HOME, if the server has one. */
    public Optional<String> home() {
        return Optional.ofNullable(baseEnv.get("HOME"));
    }

    /** The absolute directories of the inherited PATH, in order (relative entries are dropped). */
    public List<Path> pathDirectories() {
        List<Path> dirs = new ArrayList<>();
        String path = baseEnv.get("PATH");
        if (path != null) {
            for (String entry : path.split(File.pathSeparator)) {
                if (!entry.isEmpty() && Path.of(entry).isAbsolute()) {
                    dirs.add(Path.of(entry));
                }
            }
        }
        return dirs;
    }

    /** The directory a provider may keep its config files in: {@code <dataDir>/providers/<providerId>}. */
    public Path providerDir(String providerId) {
        return dataDir.resolve("providers").resolve(providerId);
    }

    private static boolean currentUidIsRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return uid instanceof Integer i && i == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }
}
