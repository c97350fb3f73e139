package org.agentworkspace.core.system;

import java.net.URI;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
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
 * @param publicKey       an Ed25519 key: when set, the manifest must come with a valid signature by it (the file
 *                        at the manifest's URL plus {@code .sig}); null: the manifest is trusted as fetched
 */
public record UpdateSettings(URI manifestUrl, Path runtimeDir, Path sourceDir, long maxPackageBytes,
                             Duration timeout, PublicKey publicKey) {
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
        if (publicKey != null && !publicKey.getAlgorithm().equals("EdDSA") && !publicKey.getAlgorithm().equals("Ed25519")) {
            throw new IllegalArgumentException("the update key must be an Ed25519 key");
        }
    }

    /** The X.509 prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it. */
    private static final byte[] ED25519_SPKI_PREFIX = java.util.HexFormat.of().parseHex("302a300506032b6570032100");

    /**
     * An Ed25519 public key from base64: the DER SubjectPublicKeyInfo ({@code openssl pkey -pubout -outform DER}),
     * its PEM form, or the raw 32 bytes.
     */
    public static PublicKey parsePublicKey(String text) {
        String b64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        byte[] der;
        try {
            der = Base64.getDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the update key is not base64");
        }
        if (der.length == 32) {
            byte[] full = new byte[ED25519_SPKI_PREFIX.length + 32];
            System.arraycopy(ED25519_SPKI_PREFIX, 0, full, 0, ED25519_SPKI_PREFIX.length);
            System.arraycopy(der, 0, full, ED25519_SPKI_PREFIX.length, 32);
            der = full;
        }
        try {
            return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the update key is not an Ed25519 public key");
        }
    }

    /** Defaults under {@code dataDir}: runtime directory {@code <dataDir>/runtime}, no manifest, no checkout. */
    public static UpdateSettings defaults(Path dataDir) {
        return new UpdateSettings(null, dataDir.toAbsolutePath().resolve("runtime"), null, DEFAULT_MAX_PACKAGE_BYTES,
                DEFAULT_TIMEOUT, null);
    }

    public UpdateSettings withManifestUrl(URI url) {
        return new UpdateSettings(url, runtimeDir, sourceDir, maxPackageBytes, timeout, publicKey);
    }

    public UpdateSettings withRuntimeDir(Path dir) {
        return new UpdateSettings(manifestUrl, dir, sourceDir, maxPackageBytes, timeout, publicKey);
    }

    public UpdateSettings withSourceDir(Path dir) {
        return new UpdateSettings(manifestUrl, runtimeDir, dir, maxPackageBytes, timeout, publicKey);
    }

    public UpdateSettings withMaxPackageBytes(long bytes) {
        return new UpdateSettings(manifestUrl, runtimeDir, sourceDir, bytes, timeout, publicKey);
    }

    public UpdateSettings withPublicKey(PublicKey key) {
        return new UpdateSettings(manifestUrl, runtimeDir, sourceDir, maxPackageBytes, timeout, key);
    }

    public UpdateSettings withTimeout(Duration t) {
        return new UpdateSettings(manifestUrl, runtimeDir, sourceDir, maxPackageBytes, t, publicKey);
    }
}
