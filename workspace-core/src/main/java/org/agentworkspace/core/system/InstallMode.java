package org.agentworkspace.core.system;

import java.util.Locale;

/** How the service was installed, which decides how it updates itself (docs/configuration.md, "Install mode"). */
public enum InstallMode {
    /** A source checkout started by {@code scripts/run.sh}: fast-forwarded with git, rebuilt by the launcher. */
    GIT("git"),
    /** Installed by npm: not a way this Java service is distributed; updates are refused. */
    NPM_GLOBAL("npm-global"),
    /** Runs from {@code <runtime dir>/current}: updated from a package named by a manifest. */
    RUNTIME_DIR("runtime-dir"),
    /** A container: updated by pulling a new image, never from inside. */
    DOCKER("docker");

    private final String wireName;

    InstallMode(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** The mode with this wire name ({@code git}, {@code npm-global}, {@code runtime-dir}, {@code docker}). */
    public static InstallMode fromWire(String name) {
        String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
        for (InstallMode m : values()) {
            if (m.wireName.equals(n)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown install mode: " + name);
    }
}
