package org.agentworkspace.core.system;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Where updates come from and go to.
 *
 * @param manifestUrl     the JSON manifest of the latest {@code runtime-dir} package ({@code http} or {@code https});
 *                        null: {@code runtime-dir} updates are not configured
 * @param runtimeDir      the runtime directory: {@code versions/<version>/} and the {@code current} link
 * @param sourceDir       the source checkout a {@code git} install runs from; null when none was found
 * @param maxPackageBytes the largest package downloaded; its unpacked content may be four times this
 * @param timeout         how long fetching the manifest, the package, or {@code git fetch} may take
 */
public record UpdateSettings(URI manifestUrl, Path runtimeDir, Path sourceDir, long maxPackageBytes,
                             Duration timeout) {
    /** 256 MiB. */
    public static final long DEFAULT_MAX_PACKAGE_BYTES = 256L * 1024 * 1024;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    public UpdateSettings {
        Objects.requireNonNull(runtimeDir, "runtimeDir");
        if (!runtimeDir.isAbsolute()) {
            throw new IllegalArgumentException("the runtime directory must be an absolute path: " + runtimeDir);
        }
        runtimeDir = runtimeDir.normalize();
        if (sourceDir != null) {
            sourceDir = sourceDir.toAbsolutePath().normalize();
        }
        if (manifestUrl != null) {
            String scheme = manifestUrl.getScheme() == null ? "" : manifestUrl.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("https") || scheme.equals("http")) || manifestUrl.getHost() == null) {
                throw new IllegalArgumentException("the update URL must be an http(s) URL: " + manifestUrl);
            }
            if (manifestUrl.getUserInfo() != null) {
                throw new IllegalArgumentException("the update URL must not carry credentials");
            }
        }
        if (maxPackageBytes < 1024) {
            throw new IllegalArgumentException("the package limit must be at least 1024 bytes");
        }
        Objects.requireNonNull(timeout, "timeout");
    }

    /** Defaults under {@code dataDir}: runtime directory {@code <dataDir>/runtime}, no manifest, no checkout. */
    public static UpdateSettings defaults(Path dataDir) {
        return new UpdateSettings(null, dataDir.toAbsolutePath().resolve("runtime"), null, DEFAULT_MAX_PACKAGE_BYTES,
                DEFAULT_TIMEOUT);
    }

    public UpdateSettings withManifestUrl(URI url) {
        return new UpdateSettings(url, runtimeDir, sourceDir, maxPackageBytes, timeout);
    }

    public UpdateSettings withRuntimeDir(Path dir) {
        return new UpdateSettings(manifestUrl, dir, sourceDir, maxPackageBytes, timeout);
    }

    public UpdateSettings withSourceDir(Path dir) {
        return new UpdateSettings(manifestUrl, runtimeDir, dir, maxPackageBytes, timeout);
    }

    public UpdateSettings withMaxPackageBytes(long bytes) {
        return new UpdateSettings(manifestUrl, runtimeDir, sourceDir, bytes, timeout);
    }

    public UpdateSettings withTimeout(Duration t) {
        return new UpdateSettings(manifestUrl, runtimeDir, sourceDir, maxPackageBytes, t);
    }
}
