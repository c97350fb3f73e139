package org.agentworkspace.core.providers;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

import org.agentworkspace.api.provider.ProviderDescriptor;

/**
 * Where the CLIs keep their files, for the HOME and XDG directories their children get (the same ones
 * {@link org.agentworkspace.api.provider.LaunchContext} passes on): {@code ~/.claude}, {@code ~/.claude.json},
 * {@code ~/.codex}, {@code ~/.qwen}, {@code ~/.cursor}, {@code ~/.grok}, opencode under {@code $XDG_CONFIG_HOME} and
 * {@code $XDG_DATA_HOME}, and gemini's own home {@code <dataDir>/providers/gemini} (the adapter sets
 * {@code GEMINI_CLI_HOME} there, see docs/providers.md).
 *
 * @param dataDir the engine's data directory
 * @param home    the children's HOME
 * @param xdgConfigHome {@code $XDG_CONFIG_HOME}, else {@code ~/.config}
 * @param xdgDataHome   {@code $XDG_DATA_HOME}, else {@code ~/.local/share}
 */
public record ProviderPaths(Path dataDir, Path home, Path xdgConfigHome, Path xdgDataHome) {
    public ProviderPaths {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(xdgConfigHome, "xdgConfigHome");
        Objects.requireNonNull(xdgDataHome, "xdgDataHome");
    }

    /** From the server's environment: HOME (else the JVM's user.home) and the XDG base directories. */
    public static ProviderPaths of(Path dataDir, Map<String, String> env) {
        Path home = Path.of(nonBlank(env.get("HOME"), System.getProperty("user.home"))).toAbsolutePath().normalize();
        Path config = absolute(env.get("XDG_CONFIG_HOME")) != null ? absolute(env.get("XDG_CONFIG_HOME"))
                : home.resolve(".config");
        Path data = absolute(env.get("XDG_DATA_HOME")) != null ? absolute(env.get("XDG_DATA_HOME"))
                : home.resolve(".local").resolve("share");
        return new ProviderPaths(dataDir.toAbsolutePath().normalize(), home, config, data);
    }

    /** {@code <dataDir>/cli-bin}: the npm prefix of the install jobs. */
    public Path cliBin() {
        return dataDir.resolve("cli-bin");
    }

    /** {@code <dataDir>/providers/<id>}: files a provider adapter owns. */
    public Path providerDir(String id) {
        return dataDir.resolve("providers").resolve(id);
    }

    /** The path shown to clients: {@code ~/…} under HOME, otherwise absolute. */
    public String display(Path p) {
        Path n = p.toAbsolutePath().normalize();
        if (n.startsWith(home) && !n.equals(home)) {
            return "~/" + home.relativize(n).toString();
        }
        return n.toString();
    }

    private static String nonBlank(String v, String otherwise) {
        return v == null || v.isBlank() ? otherwise : v;
    }

    private static Path absolute(String v) {
        if (v == null || v.isBlank()) {
            return null;
        }
        Path p = Path.of(v);
        return p.isAbsolute() ? p.normalize() : null;
    }

    /**
     * Where a descriptor's file of provider {@code provider} is on this machine.
     *
     * @throws IllegalArgumentException for {@link ProviderDescriptor.Base#PROJECT}, which needs a project (see
     *     {@link #resolve(String, ProviderDescriptor.Location, Path)})
     */
    public Path resolve(String provider, ProviderDescriptor.Location location) {
        return resolve(provider, location, null);
    }

    /** {@link #resolve(String, ProviderDescriptor.Location)}, with {@code project} for the base {@code PROJECT}. */
    public Path resolve(String provider, ProviderDescriptor.Location location, Path project) {
        Path base = switch (location.base()) {
            case HOME -> home;
            case XDG_CONFIG -> xdgConfigHome;
            case XDG_DATA -> xdgDataHome;
            case PROVIDER_DIR -> providerDir(provider);
            case PROJECT -> {
                if (project == null) {
                    throw new IllegalArgumentException("a project location needs the project");
                }
                yield project;
            }
        };
        return base.resolve(location.path());
    }
}
